package graph_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/graph"
	"github.com/planc/planc/ir"
	"github.com/planc/planc/vm"
)

// tickHost is a vm.Host whose steps all take one tick: it holds every
// dispatch until the test releases it, and the test releases the steps of
// a tick together once the VM has dispatched them all, one at a time and
// each once the VM has settled the one before: shell and capsule steps in
// the order the VM dispatched them, then the tool step (Simulate's
// assumption, made real on the VM).
type tickHost struct {
	vm.NopHost
	index map[string]int32 // step index by id

	mu      sync.Mutex
	changed chan struct{}
	order   []int32               // plan_step_start, in the VM's order
	held    map[int32]chan string // dispatches waiting for their release
	settled map[int32]bool
	tick    map[int32]int // the tick each step was dispatched at
	now     int           // the tick of what the VM dispatches now
}

func newTickHost(p *ir.Program) *tickHost {
	h := &tickHost{index: map[string]int32{}, changed: make(chan struct{}), held: map[int32]chan string{}, settled: map[int32]bool{}, tick: map[int32]int{}}
	for i := range p.Steps {
		h.index[p.Steps[i].ID] = int32(i)
	}
	return h
}

func (h *tickHost) hold(c vm.Call) (string, error) {
	ch := make(chan string)
	h.mu.Lock()
	h.held[int32(c.Index)] = ch
	h.notify()
	h.mu.Unlock()
	return <-ch, nil
}

func (h *tickHost) CallTool(_ context.Context, c vm.Call) (string, error)     { return h.hold(c) }
func (h *tickHost) RunShell(_ context.Context, c vm.Call) (string, error)     { return h.hold(c) }
func (h *tickHost) SpawnCapsule(_ context.Context, c vm.Call) (string, error) { return h.hold(c) }

// Trace records the VM's dispatches and settlements, in its order.
func (h *tickHost) Trace(e vm.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch e.Kind {
	case vm.PlanStepStart:
		i := h.index[e.StepID]
		h.order = append(h.order, i)
		h.tick[i] = h.now
	case vm.PlanStep:
		i := h.index[e.StepID]
		h.settled[i] = true
		h.now = h.tick[i] + 1 // what it makes ready starts a tick later
	}
	h.notify()
}

// notify wakes wait; h.mu is held.
func (h *tickHost) notify() {
	close(h.changed)
	h.changed = make(chan struct{})
}

// wait blocks until cond (called with h locked) holds or done closes; it
// reports whether cond held.
func (h *tickHost) wait(t *testing.T, done <-chan struct{}, cond func() bool) bool {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		h.mu.Lock()
		ok, ch := cond(), h.changed
		h.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-ch:
		case <-done:
			return false
		case <-timeout:
			t.Fatal("gave up waiting for the VM: it did not dispatch what Simulate says")
		}
	}
}

// run runs p on the VM with max parallel shell and capsule steps, the
// steps of tick t being want[t] (Simulate's), and returns the order the
// VM dispatched them in. A VM that does not dispatch want[t] fails the
// test; one that dispatches other steps is caught by comparing the order.
func (h *tickHost) run(t *testing.T, p *ir.Program, maxParallel int, want [][]int32) []int32 {
	t.Helper()
	done := make(chan struct{})
	var rep vm.Report
	var err error
	go func() {
		defer close(done)
		rep, err = vm.Run(context.Background(), p, h, vm.Options{MaxParallel: maxParallel})
	}()
	for tick, steps := range want {
		var others, tools []int32
		dispatched := h.wait(t, done, func() bool {
			others, tools = others[:0], tools[:0]
			for _, i := range h.order {
				if h.tick[i] != tick || !slices.Contains(steps, i) {
					continue
				}
				if h.held[i] == nil {
					return false // dispatched, not yet in the host
				}
				if p.Steps[i].Kind == ir.KindTool {
					tools = append(tools, i)
				} else {
					others = append(others, i)
				}
			}
			return len(others)+len(tools) == len(steps)
		})
		if !dispatched {
			t.Fatalf("the VM ended without dispatching %v at tick %d", ids(p, steps), tick)
		}
		for _, i := range append(others, tools...) {
			h.mu.Lock()
			ch := h.held[i]
			h.mu.Unlock()
			ch <- "" // its completion reaches the VM once the VM is idle
			h.wait(t, done, func() bool { return h.settled[i] })
		}
	}
	<-done
	if err != nil || !rep.Completed {
		t.Fatalf("run: %v, %+v", err, rep)
	}
	return h.order
}

// randomPlan is n steps of every kind with random dependencies, in a
// shuffled plan order so that dependencies point both ways.
func randomPlan(rng *rand.Rand, n int) []string {
	kinds := []string{`"tool": "notes"`, `"shell": "echo"`, `"capsule": "w", "input": "x"`}
	steps := make([]string, n)
	for i := range n {
		var deps []string
		for j := range i {
			if rng.IntN(4) == 0 {
				deps = append(deps, fmt.Sprintf("%q", fmt.Sprintf("s%d", j)))
			}
		}
		steps[i] = fmt.Sprintf(`{"id": "s%d", %s, "depends_on": [%s]}`, i, kinds[rng.IntN(len(kinds))], strings.Join(deps, ", "))
	}
	rng.Shuffle(n, func(i, j int) { steps[i], steps[j] = steps[j], steps[i] })
	return steps
}

// TestSimulateIsTheVM: on random plans of tool, shell and capsule steps,
// with and without --max-parallel, the VM whose steps all take one tick
// (tickHost) dispatches every step at the tick and in the order Simulate
// gives, and its tool lane is Simulate's.
func TestSimulateIsTheVM(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 2))
	for round := range 200 {
		steps := randomPlan(rng, 1+rng.IntN(14))
		maxParallel := rng.IntN(4)
		p := lower(t, steps...)
		s, err := graph.Simulate(p, graph.Options{MaxParallel: maxParallel})
		if err != nil {
			t.Fatal(err)
		}
		h := newTickHost(p)
		order := h.run(t, p, maxParallel, s.Ticks)
		vmTick := make([]int, len(p.Steps))
		for i := range p.Steps {
			vmTick[i] = h.tick[int32(i)]
		}
		var lane []int32
		for _, i := range order {
			if p.Steps[i].Kind == ir.KindTool {
				lane = append(lane, i)
			}
		}
		plan := strings.Join(steps, "\n")
		if d := cmp.Diff(ids(p, s.Order), ids(p, order)); d != "" {
			t.Fatalf("round %d, --max-parallel %d: the dispatch order differs (-simulate +vm):\n%s\nplan:\n%s", round, maxParallel, d, plan)
		}
		if d := cmp.Diff(s.Tick, vmTick); d != "" {
			t.Fatalf("round %d, --max-parallel %d: the ticks differ (-simulate +vm):\n%s\nplan:\n%s", round, maxParallel, d, plan)
		}
		if d := cmp.Diff(ids(p, s.ToolLane), ids(p, lane)); d != "" {
			t.Fatalf("round %d, --max-parallel %d: the tool lane differs (-simulate +vm):\n%s\nplan:\n%s", round, maxParallel, d, plan)
		}
	}
}
