package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/internal/testkit"
)

// TestTraceJSONTerminal: the JSON views of planc trace (report, and
// steps, show and list with --format json) show on a terminal the C1 and
// bidirectional controls and the line separators that a plan's id, a step
// id, an error and a step's output put in them as \uXXXX escapes, as planc
// run's report does: still the same JSON. Piped, they are the JSON as
// made, the report byte for byte as kept.
func TestTraceJSONTerminal(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "hostile.txt", reportHostile,
		"plan.json", `{"id": "r\u202e\u009b2J", "steps": [
			{"id": "read", "tool": "read-file", "input": {"path": "hostile.txt"}},
			{"id": "gone\u2066\u009b2J", "tool": "read-file", "input": {"path": "no\u202esuch\u2028file"}, "on_error": "continue"}]}`)
	if r := planc(t, dir, "--quiet", "plan.json"); r.code != 0 {
		t.Fatalf("planc run: exit %d\n%s", r.code, r.stderr)
	}
	raw := []string{"\u009b", "\u202e", "\u2066", "\u2028", "\u2029"}
	for _, args := range [][]string{
		{"trace", "report"},
		{"trace", "report", "--format", "json"},
		{"trace", "steps", "--format", "json"},
		{"trace", "show", "--format", "json"},
		{"trace", "list", "--format", "json"},
	} {
		piped := plancTrace(t, dir, args[1:]...)
		if piped.code != 0 || !strings.Contains(piped.stdout, "\u202e") {
			t.Fatalf("%v piped: exit %d, want the controls as they are:\n%q\n%s", args, piped.code, piped.stdout, piped.stderr)
		}
		cmd := exec.Command(plancBin(t), args...)
		cmd.Dir = dir
		code, screen := waitOnPTY(t, cmd, 200, 50, func(slave *os.File) { cmd.Stdout = slave })
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, screen)
		}
		screen = strings.ReplaceAll(screen, "\r\n", "\n") // the terminal's own line ends
		for _, bad := range raw {
			if strings.Contains(screen, bad) {
				t.Errorf("%v: the terminal got %q:\n%q", args, bad, screen)
			}
		}
		if d := cmp.Diff(jsonValues(t, piped.stdout), jsonValues(t, screen)); d != "" {
			t.Errorf("%v: the terminal's JSON is not the piped one (-piped +terminal):\n%s", args, d)
		}
	}
	if r := plancTrace(t, dir, "report"); !strings.Contains(r.stdout, "a\u009b31m \u202eevil") {
		t.Errorf("piped report does not carry the output as it is:\n%q", r.stdout)
	}
}

// jsonValues decodes every JSON value of s, in order.
func jsonValues(t *testing.T, s string) []any {
	t.Helper()
	var out []any
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	for dec.More() {
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("not JSON: %v\n%q", err, s)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		t.Fatalf("no JSON in %q", s)
	}
	return out
}
