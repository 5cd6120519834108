package vm_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/vm"
	"github.com/planc/planc/vm/vmtest"
)

// TestNoGoroutineOutlivesRun: when Run returns, every dispatch has
// returned and every goroutine Run started ends (it has at most its exit
// left to run), also after a cancel with capsules and shells in flight.
func TestNoGoroutineOutlivesRun(t *testing.T) {
	var steps []string
	for i := range 40 {
		if i%2 == 0 {
			steps = append(steps, fmt.Sprintf(`{"id": "s%d", "shell": "x"}`, i))
		} else {
			steps = append(steps, fmt.Sprintf(`{"id": "c%d", "capsule": "w", "input": "x"}`, i))
		}
	}
	prog := compile(t, steps...)
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	h := &vmtest.Host{
		OnEvent: func(e vm.Event) {
			if e.Kind == vm.PlanStepStart && e.StepID == "c39" {
				cancel()
			}
		},
		Auto: func(ctx context.Context, c vm.Call) (string, error) {
			if c.Step.Kind.String() == "capsule" {
				<-ctx.Done()
			}
			return "", nil
		},
	}
	rep, err := vm.Run(ctx, prog, h, vm.Options{})
	if err != nil || !rep.Canceled || len(rep.Steps) != 40 {
		t.Fatalf("run: %v %s", err, rep.Summary)
	}
	if h.Active() != 0 {
		t.Errorf("%d dispatches in the host after Run returned", h.Active())
	}
	// The dispatch goroutines have sent their last message; let them exit.
	// Counting goroutines alone is fooled by the runtime's and the race
	// detector's own, so the check looks for goroutines still inside the
	// vm package (its dispatch code), waiting a bounded while for them.
	var left string
	if !testkit.Within(0, func() bool { left = vmGoroutines(); return left == "" }) {
		t.Fatalf("goroutines of the vm outlive Run (%d before, %d now):\n%s", before, runtime.NumGoroutine(), left)
	}
}

// vmGoroutines returns the stacks of goroutines running code of package vm
// (not its tests), "" when there are none.
func vmGoroutines() string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "github.com/planc/planc/vm.") && !strings.Contains(g, "vm_test.") {
			out = append(out, g)
		}
	}
	return strings.Join(out, "\n\n")
}
