package vm_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"

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
	for range 10000 {
		if runtime.NumGoroutine() <= before {
			return
		}
		runtime.Gosched()
	}
	t.Errorf("%d goroutines before Run, %d after", before, runtime.NumGoroutine())
}
