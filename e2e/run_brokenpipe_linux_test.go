package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/planc/planc/internal/sessionfmt"
	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/vm"
)

// TestRunReaderGoesAway: `planc run --progress PLAN 2>&1 | head -1` — the
// reader of standard error and output goes away after the first progress
// line, mid-plan. The view ends; the run does not: the plan runs to
// plan_end, the report and every step's output are kept whole, and the
// exit status is the plan's.
func TestRunReaderGoesAway(t *testing.T) {
	testkit.NeedScope(t)
	t.Parallel()
	dir := t.TempDir()
	testkit.WriteFiles(t, dir,
		"capsule.json", `{"name": "local/pipe", "capabilities": {"plan": {"submit": true}, "shell": {"allow": ["sh"]}}, "tools": {"builtin": ["notes"]}}`,
		"plan.json", `{"id": "pipe", "steps": [
  {"id": "wait", "shell": "sh -c 'while [ ! -e go ]; do sleep 0.05; done; echo waited'"},
  {"id": "note", "tool": "notes", "depends_on": ["wait"], "input": {"body": "$wait.output"}},
  {"id": "more", "shell": "sh -c 'seq 1 3'", "depends_on": ["note"]}
]}`)
	cmd := plancCmd(t, dir, "--progress", "--capsule", "capsule.json", "plan.json")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = w, w // 2>&1 | head -1
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	first, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		t.Fatalf("no first progress line: %v", err)
	}
	r.Close() // head has what it wanted, and exits
	// Only now may "wait" end: every later line and the report meet a
	// pipe nobody reads.
	testkit.WriteFiles(t, dir, "go", "")
	if code := exitCode(t, cmd.Wait()); code != 0 {
		t.Fatalf("exit %d after the reader went away (first line %q); want the plan's 0", code, first)
	}
	sess := oneSession(t, dir)
	events := testkit.Events(testkit.TraceLines(t, filepath.Join(sess, "trace.jsonl")))
	if n := len(events); n < 2 || events[n-2] != "plan_end" || events[n-1] != "session_end:ok" {
		t.Fatalf("the trace does not end with plan_end and session_end ok: %v", events)
	}
	b, err := os.ReadFile(filepath.Join(sess, sessionfmt.ReportPath(1)))
	if err != nil {
		t.Fatal(err)
	}
	var rep vm.Report
	if err := json.Unmarshal(b, &rep); err != nil || !rep.Completed || len(rep.Steps) != 3 {
		t.Errorf("the kept report: %v\n%s", err, b)
	}
	for step, want := range map[string]string{"wait": "waited\n", "more": "1\n2\n3\n"} {
		if b, err := os.ReadFile(filepath.Join(sess, sessionfmt.OutputPath(1, step, 1))); err != nil || string(b) != want {
			t.Errorf("%s's kept output %q (%v), want %q", step, b, err, want)
		}
	}
}
