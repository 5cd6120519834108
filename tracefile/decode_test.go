package tracefile

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fastTaken are lines as planc writes them, and others the fast path
// takes; fastLeft are lines it must leave to encoding/json.
var (
	fastTaken = []string{
		`{"ts":"2025-01-02T15:04:05.013200000Z","event":"plan_step","session":"s","plan_id":"p","step_id":"a","status":"success","attempt":1,"duration_ms":0,"error":null}`,
		`{"ts":"t","event":"plan_start","session":"s","plan_id":"p","plan_file":"plans/plan-1.json","steps":4,"sha256":"ab","redrive":2}`,
		`{"ts":"t","event":"plan_step","session":"s","plan_id":"p","step_id":"a","status":"success","attempt":3,"duration_ms":0,"error":null,"reused":true,"output_bytes":12}`,
		`{"ts":"t","event":"task_canceled","session":"s","task_id":"plan-1","delegation_ids":["a", "b"]}`,
		`{"ts":"t","event":"task_canceled","session":"s","task_id":"plan-1","delegation_ids":[]}`,
		`{"event":"x","delegation_ids":null,"steps":null,"reused":null,"n":-0.5e+3}`,
		`{"event":"x","event":null}`,
		`{}`,
		` { "event" : "x" , "extra" : true , "z" : false } `,
		`{"event":"x","error":"say \"hi\"\n\u00e9\ud83d\ude00 \ud800x \udc00\u0041 é\u2028\/"}`,
		"{\"event\":\"x\",\"error\":\"\xff\xed\xa0\x80 \x7f\",\"other\":\"\\n\"}",
	}
	fastLeft = []string{
		`{"event":"x","Event":"y"}`,
		`{"event":"x","attempt":"two"}`,
		`{"event":"x","attempt":1.0}`,
		`{"event":"x","attempt":9223372036854775808}`,
		`{"event":"x","attempt":01}`,
		`{"event":"x"} trailing`,
		`{"event":"x",}`,
		`{"event":"x"`,
		`{"a":{"b":1},"event":"x"}`,
		`{"event":"x","unknown":[1]}`,
		`{"event":"x","error":"\x"}`,
		`{"event":"x","error":"\u12"}`,
		"{\"event\":\"x\",\"error\":\"a\tb\"}",
		`{"ev\u0065nt":"x"}`,
	}
)

// FuzzFastDecode: every line the fast path takes is valid JSON and decodes
// to exactly what encoding/json makes of it.
func FuzzFastDecode(f *testing.F) {
	for _, s := range append(fastTaken, fastLeft...) {
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
	for _, s := range fastTaken {
		var e Event
		if !fastDecode([]byte(s), &e) {
			t.Errorf("fastDecode(%q) left it to encoding/json", s)
		}
	}
	for _, s := range fastLeft {
		var e Event
		if fastDecode([]byte(s), &e) {
			t.Errorf("fastDecode(%q) took it", s)
		}
	}
}

// FuzzFastReport: every kept report the fast path takes decodes to
// exactly what encoding/json makes of it.
func FuzzFastReport(f *testing.F) {
	for _, s := range []string{
		`{"plan_id": "p", "completed": false, "canceled": false, "failed_step": "b", "steps": [{"step_id": "a", "status": "success", "output": "x\n\u00e9", "error": null}, {"step_id": "b", "status": "failed", "output": null, "error": "exit status 1"}]}`,
		`{"plan_id":"p","completed":true,"canceled":false,"failed_step":null,"steps":[]}`,
		`{"plan_id":null,"steps":null}`,
		`{"plan_id":"p","steps":[{"step_id":"a","output":""}],"extra":1}`,
		`{"plan_id":"p","steps":[{"step_id":"a"}]} x`,
		`{"steps":[{"step_id":"a","status":"x"}],"steps":[{"step_id":"b"}]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		var fast keptReport
		if !fastReport([]byte(src), &fast) {
			return
		}
		var slow keptReport
		if err := json.Unmarshal([]byte(src), &slow); err != nil {
			t.Fatalf("fast path took %q, encoding/json: %v", src, err)
		}
		if d := cmp.Diff(slow, fast); d != "" {
			t.Fatalf("%q (-encoding/json +fast):\n%s", src, d)
		}
	})
}
