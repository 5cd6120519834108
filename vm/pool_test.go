package vm_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/planc/planc/vm"
	"github.com/planc/planc/vm/vmtest"
)

// TestPoolNeverQueuesBehindAHostCall: the run reuses its dispatch
// goroutines, but a step made ready while every one of them is in a host
// call still goes at once. Eighty shell steps block in the host (more than
// the pool holds) until the last step of a ten-step chain runs; the chain
// comes first in the plan (its steps reuse the goroutine a finished one
// left idle) or last (every pooled goroutine is blocked). Were any step
// queued behind a blocked call, the chain would never end and the blocked
// steps would give up after the watchdog's minute and fail.
func TestPoolNeverQueuesBehindAHostCall(t *testing.T) {
	for _, chainFirst := range []bool{true, false} {
		t.Run(fmt.Sprintf("chain-first=%v", chainFirst), func(t *testing.T) {
			var chain, blocked []string
			for i := range 10 {
				s := fmt.Sprintf(`{"id": "c%d", "shell": "x"`, i)
				if i > 0 {
					s += fmt.Sprintf(`, "depends_on": ["c%d"]`, i-1)
				}
				chain = append(chain, s+"}")
			}
			for i := range 80 {
				blocked = append(blocked, fmt.Sprintf(`{"id": "b%d", "shell": "x"}`, i))
			}
			steps := append(blocked, chain...)
			if chainFirst {
				steps = append(chain, blocked...)
			}
			prog := compile(t, steps...)
			release := make(chan struct{})
			var once sync.Once
			watchdog := time.NewTimer(time.Minute)
			defer watchdog.Stop()
			h := &vmtest.Host{Auto: func(_ context.Context, c vm.Call) (string, error) {
				switch {
				case c.Step.ID == "c9":
					once.Do(func() { close(release) })
				case strings.HasPrefix(c.Step.ID, "b"):
					select {
					case <-release:
					case <-watchdog.C:
						once.Do(func() { close(release) })
						return "", errors.New("the chain never ended: a step waited behind a blocked host call")
					}
				}
				return "ok", nil
			}}
			rep, err := vm.Run(context.Background(), prog, h, vm.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Completed || rep.Succeeded != 90 {
				t.Fatalf("%s", rep.Summary)
			}
		})
	}
}

// serialHost is a host whose dispatches return at once, so that dispatch
// goroutines end attempts while the scheduler waits and drive it
// themselves. It counts every overlap the Host contract forbids: two
// calls among Refuse, Trace and WholeOutput at once, or two CallTool at
// once. When cancelAt is a step's id, Trace cancels the run as that
// step's plan_step_start goes by (from whichever goroutine drives).
type serialHost struct {
	vm.NopHost
	sched, tools atomic.Int32 // calls in progress
	overlaps     atomic.Int32
	cancelAt     string
	cancel       context.CancelFunc
	starts       map[string]int // plan_step_start lines by step (Trace is serial)
}

func (h *serialHost) enter(n *atomic.Int32) {
	if n.Add(1) != 1 {
		h.overlaps.Add(1)
	}
}

func (h *serialHost) Refuse(context.Context, vm.Call) error {
	h.enter(&h.sched)
	defer h.sched.Add(-1)
	return nil
}

func (h *serialHost) CallTool(context.Context, vm.Call) (string, error) {
	h.enter(&h.tools)
	defer h.tools.Add(-1)
	return "out", nil
}

func (h *serialHost) RunShell(context.Context, vm.Call) (string, error) { return "out", nil }

func (h *serialHost) WholeOutput(_, _ int, text string) (string, error) {
	h.enter(&h.sched)
	defer h.sched.Add(-1)
	return text, nil
}

func (h *serialHost) Trace(e vm.Event) {
	h.enter(&h.sched)
	defer h.sched.Add(-1)
	if e.Kind == vm.PlanStepStart {
		h.starts[e.StepID]++
		if e.StepID == h.cancelAt {
			h.cancel()
		}
	}
}

// TestHostCallsStaySerial: whichever goroutine drives the scheduler,
// Refuse, Trace and WholeOutput never overlap, nor do two tool calls, and
// a cancel landing while a dispatch goroutine drives settles the plan as
// any cancel does: every step dispatched succeeds, once, and every other
// one is skipped with CanceledBeforeRun. Three steps in four are tool
// steps whose calls return at once; the rest are shell steps, and every
// eighth reads an earlier step's output in its condition.
func TestHostCallsStaySerial(t *testing.T) {
	const n = 400
	var steps []string
	for i := range n {
		s := fmt.Sprintf(`{"id": "s%d", "tool": "t"`, i)
		if i%4 == 3 {
			s = fmt.Sprintf(`{"id": "s%d", "shell": "x"`, i)
		}
		if i > 0 {
			s += fmt.Sprintf(`, "depends_on": ["s%d", "s%d"]`, i-1, i/2)
		}
		if i%8 == 5 {
			s += fmt.Sprintf(`, "if": "$s%d.output == 'out'"`, i/2)
		}
		steps = append(steps, s+"}")
	}
	prog := compile(t, steps...)
	for _, cancelAt := range []string{"", "s1", "s57", "s211", "s398"} {
		for round := range 20 {
			ctx, cancel := context.WithCancel(context.Background())
			h := &serialHost{cancelAt: cancelAt, cancel: cancel, starts: map[string]int{}}
			rep, err := vm.Run(ctx, prog, h, vm.Options{})
			cancel()
			if err != nil {
				t.Fatal(err)
			}
			if k := h.overlaps.Load(); k != 0 {
				t.Fatalf("cancel at %q, round %d: %d overlapping host calls", cancelAt, round, k)
			}
			if rep.Canceled != (cancelAt != "") || len(rep.Steps) != n {
				t.Fatalf("cancel at %q, round %d: %s", cancelAt, round, rep.Summary)
			}
			for _, s := range rep.Steps {
				switch {
				case h.starts[s.StepID] > 1:
					t.Fatalf("cancel at %q: %s dispatched %d times", cancelAt, s.StepID, h.starts[s.StepID])
				case h.starts[s.StepID] == 1 && s.Status != vm.StatusSuccess,
					h.starts[s.StepID] == 0 && (s.Status != vm.StatusSkipped || s.Error == nil || *s.Error != vm.CanceledBeforeRun):
					t.Fatalf("cancel at %q, round %d: %s %v after %d dispatches", cancelAt, round, s.StepID, s.Status, h.starts[s.StepID])
				}
			}
		}
	}
}
