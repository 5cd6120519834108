package progress

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/check"
	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/ir"
	"github.com/planc/planc/vm"
)

// flakyHost fails step "a" at the attempts in fail and succeeds every
// other dispatch; it hands every event to observe.
type flakyHost struct {
	vm.NopHost
	fail    map[int]bool
	observe func(vm.Event)
}

func (h *flakyHost) CallTool(_ context.Context, c vm.Call) (string, error) {
	if c.Step.ID == "a" && h.fail[c.Attempt] {
		return "", errors.New("boom")
	}
	return "", nil
}

func (h *flakyHost) Trace(e vm.Event) { h.observe(e) }

// TestProgressRedriveRetry: in a redrive, attempt numbers go on from the
// earlier run's (S26), so they exceed the step's retries; a failed
// attempt that a retry follows is still a retry in the lines view, not
// the step's failure, and the live view keeps the steps after it waiting,
// not "not run", while the run goes on.
func TestProgressRedriveRetry(t *testing.T) {
	p, diags := check.Load([]byte(`{"id": "p", "steps": [
		{"id": "a", "tool": "notes", "retries": 1},
		{"id": "b", "tool": "notes", "depends_on": ["a"]}
	]}`), nil)
	if p == nil {
		t.Fatalf("refused: %v", diags)
	}
	prog, err := ir.Lower(p)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Unix(0, 0)
	var buf bytes.Buffer
	lv := newLinesView(&buf, nil)
	lv.now = func() time.Time { return t0 }
	live := newLiveView(nil, nil)
	live.t.init(prog)
	var during []string
	h := &flakyHost{fail: map[int]bool{3: true}, observe: func(e vm.Event) {
		lv.Observe(prog, e)
		live.t.apply(e, t0)
		if e.Kind == vm.PlanStep && e.StepID == "a" && e.Attempt == 3 {
			during = live.lines(t0, 79, 30)
		}
	}}
	// The first run failed a at attempts 1 and 2.
	prior := []vm.Prior{{Status: vm.StatusFailed, Error: "boom", Attempt: 2}, {}}
	rep, err := vm.Run(context.Background(), prog, h, vm.Options{Redrive: 1, Prior: prior})
	if err != nil || !rep.Completed {
		t.Fatalf("run: %v, %+v", err, rep)
	}
	got := testkit.NormaliseTimes(buf.String())
	want := strings.Join([]string{
		`   0.00s  plan     "p": 2 steps`,
		`   0.00s  start    a (tool, attempt 3)`,
		`   0.00s  retry    a: attempt 3 failed 0.0s: boom`,
		`   0.00s  start    a (tool, attempt 4)`,
		`   0.00s  success  a 0.0s`,
		`   0.00s  start    b (tool)`,
		`   0.00s  success  b 0.0s`,
		`   0.00s  end      "p" completed: 2 succeeded, 0 failed, 0 skipped`,
	}, "\n") + "\n"
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("lines view (-want +got):\n%s", d)
	}
	wantLive := []string{
		`plan "p": 2 steps, 0 settled, 1 running, 1 waiting`,
		"  a     tool     running 0.0s (attempt 3)",
		"  b     tool     waiting",
	}
	if d := cmp.Diff(wantLive, during); d != "" {
		t.Errorf("live view after attempt 3 failed (-want +got):\n%s", d)
	}
}
