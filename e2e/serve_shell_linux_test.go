package e2e

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/planc/planc/internal/testkit"
)

// TestServeShellFlags: --shell-timeout and --max-parallel reach the plans
// planc serve runs, as they do for planc run.
func TestServeShellFlags(t *testing.T) {
	testkit.NeedScope(t)
	t.Parallel()
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "capsule.json", shellCapsule)
	c := startServe(t, dir, nil, "--capsule", "capsule.json", "--shell-timeout", "300ms")

	r := c.call(t, "submit-plan", `{"id": "slow", "steps": [{"id": "nap", "shell": "sleep 30"}]}`, nil)
	if rep := structuredReport(t, r); !r.IsError || len(rep.Steps) != 1 || deref(rep.Steps[0].Error) != "timed out after 300ms" {
		t.Fatalf("isError %v, report %+v", r.IsError, rep)
	}

	// Two independent shell steps: with one slot, the second starts only
	// once the first has settled. A serve of its own, without the short
	// timeout: on a busy machine a 0.2 s sleep can take longer than 300 ms.
	c = startServe(t, dir, nil, "--capsule", "capsule.json", "--max-parallel", "1")
	r = c.call(t, "submit-plan", `{"id": "two", "steps": [{"id": "a", "shell": "sleep 0.2"}, {"id": "b", "shell": "sleep 0.2"}]}`, nil)
	if r.IsError {
		t.Fatalf("plan two failed: %+v", structuredReport(t, r))
	}
	sess, _ := r.Meta["session"].(string)
	var order []string
	for _, l := range testkit.TraceLines(t, filepath.Join(sess, "trace.jsonl")) {
		if str(l["plan_id"]) != "two" {
			continue
		}
		switch str(l["event"]) {
		case "plan_step_start":
			order = append(order, "start "+str(l["step_id"]))
		case "plan_step":
			order = append(order, "end "+str(l["step_id"]))
		}
	}
	if want := "[start a end a start b end b]"; fmt.Sprint(order) != want {
		t.Errorf("steps of plan two: %v, want %s (at most one shell step at a time)", order, want)
	}
}
