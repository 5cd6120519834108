package tracefile

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fastSeeds are lines as planc writes them, and near misses the fast path
// must leave to encoding/json.
var fastSeeds = []string{
	`{"ts":"2025-01-02T15:04:05.013200000Z","event":"plan_step","session":"s","plan_id":"p","step_id":"a","status":"success","attempt":1,"duration_ms":0,"error":null}`,
	`{"ts":"t","event":"plan_start","session":"s","plan_id":"p","plan_file":"plans/plan-1.json","steps":4,"sha256":"ab","redrive":2}`,
	`{"ts":"t","event":"plan_step","session":"s","plan_id":"p","step_id":"a","status":"success","attempt":3,"duration_ms":0,"error":null,"reused":true,"output_bytes":12}`,
	`{"ts":"t","event":"task_canceled","session":"s","task_id":"plan-1","delegation_ids":["a", "b"]}`,
	`{"ts":"t","event":"task_canceled","session":"s","task_id":"plan-1","delegation_ids":[]}`,
	`{"event":"x","delegation_ids":null,"steps":null,"reused":null,"n":-0.5e+3}`,
	`{"event":"x","event":null}`,
	`{}`,
	` { "event" : "x" , "extra" : true , "z" : false } `,
	`{"event":"x","Event":"y"}`,
	`{"event":"x","attempt":"two"}`,
	`{"event":"x","attempt":1.0}`,
	`{"event":"x","attempt":9223372036854775808}`,
	`{"event":"x","attempt":01}`,
	`{"event":"x","error":"say \"hi\""}`,
	`{"event":"x","error":"é"}`,
	`{"event":"x"} trailing`,
	`{"event":"x",}`,
	`{"event":"x"`,
	`{"a":{"b":1},"event":"x"}`,
	`{"event":"x","unknown":[1]}`,
}

// FuzzFastDecode: every line the fast path takes is valid JSON and decodes
// to exactly what encoding/json makes of it.
func FuzzFastDecode(f *testing.F) {
	for _, s := range fastSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		var fast Event
		if !fastDecode([]byte(line), &fast) {
			return
		}
		if !json.Valid([]byte(line)) {
			t.Fatalf("fast path took invalid JSON %q", line)
		}
		var slow Event
		if err := json.Unmarshal([]byte(line), &slow); err != nil {
			t.Fatalf("fast path took %q, encoding/json: %v", line, err)
		}
		if d := cmp.Diff(slow, fast); d != "" {
			t.Fatalf("%q (-encoding/json +fast):\n%s", line, d)
		}
	})
}

// TestFastDecodeTakes: the lines planc writes take the fast path; the
// near misses do not.
func TestFastDecodeTakes(t *testing.T) {
	for i, s := range fastSeeds {
		var e Event
		want := i < 9
		if got := fastDecode([]byte(s), &e); got != want {
			t.Errorf("fastDecode(%q) = %v, want %v", s, got, want)
		}
	}
}
