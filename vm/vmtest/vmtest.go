// Package vmtest provides a deterministic fake vm.Host for tests of the VM
// and of anything that embeds it. The test decides every dispatch's result
// and when it arrives, through channels: a dispatch blocks in the host until
// the test replies to it (or, with Auto set, is answered at once). Nothing
// sleeps; every wait gives up after Timeout and fails the test.
package vmtest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/planc/planc/ir"
	"github.com/planc/planc/vm"
)

// Timeout bounds every wait of Take and Wait: a test that waits longer has a
// bug (or the VM has).
const Timeout = 10 * time.Second

// Host is the fake host. Set its exported fields before Run; read what it
// saw with Events, MaxTools and Active.
type Host struct {
	// Refusals maps a step id to the error Refuse returns for it.
	Refusals map[string]error
	// Auto, when set, answers every dispatch at once with its result.
	Auto func(ctx context.Context, c vm.Call) (string, error)
	// OnEvent, when set, is called with each event on the VM's scheduler
	// goroutine, after the event is recorded: it can cancel the run at an
	// exact point of the event sequence.
	OnEvent func(vm.Event)

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced whenever something is recorded
	events   []vm.Event
	waiting  []*Dispatch // arrived, not yet taken
	refused  []string
	tools    int // tool dispatches in the host now
	maxTools int
	active   int // dispatches in the host now
}

// Dispatch is one dispatch waiting in the host for the test's reply.
type Dispatch struct {
	// Call is what the VM dispatched.
	Call vm.Call
	// Ctx is the context the VM gave it.
	Ctx   context.Context
	reply chan reply
}

type reply struct {
	out   string
	err   error
	panic any
}

// Reply ends the dispatch with output out and error err (nil: success).
func (d *Dispatch) Reply(out string, err error) { d.reply <- reply{out: out, err: err} }

// Panic ends the dispatch with a panic in the host.
func (d *Dispatch) Panic(v any) { d.reply <- reply{panic: v} }

// Refuse implements vm.Host.
func (h *Host) Refuse(_ context.Context, c vm.Call) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.refused = append(h.refused, c.Step.ID)
	return h.Refusals[c.Step.ID]
}

// CallTool implements vm.Host.
func (h *Host) CallTool(ctx context.Context, c vm.Call) (string, error) { return h.dispatch(ctx, c) }

// RunShell implements vm.Host.
func (h *Host) RunShell(ctx context.Context, c vm.Call) (string, error) { return h.dispatch(ctx, c) }

// SpawnCapsule implements vm.Host. Like a real host it returns as soon as
// its context is cancelled, when the test has not replied before.
func (h *Host) SpawnCapsule(ctx context.Context, c vm.Call) (string, error) {
	return h.dispatch(ctx, c)
}

// Trace implements vm.Host.
func (h *Host) Trace(e vm.Event) {
	h.mu.Lock()
	h.events = append(h.events, e)
	h.notify()
	h.mu.Unlock()
	if h.OnEvent != nil {
		h.OnEvent(e)
	}
}

func (h *Host) dispatch(ctx context.Context, c vm.Call) (string, error) {
	h.mu.Lock()
	h.active++
	if c.Step.Kind == ir.KindTool {
		h.tools++
		h.maxTools = max(h.maxTools, h.tools)
	}
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		h.active--
		if c.Step.Kind == ir.KindTool {
			h.tools--
		}
		h.notify()
		h.mu.Unlock()
	}()
	if h.Auto != nil {
		return h.Auto(ctx, c)
	}
	d := &Dispatch{Call: c, Ctx: ctx, reply: make(chan reply, 1)}
	h.mu.Lock()
	h.waiting = append(h.waiting, d)
	h.notify()
	h.mu.Unlock()
	var r reply
	if c.Step.Kind == ir.KindCapsule {
		select {
		case r = <-d.reply:
		case <-ctx.Done():
			r.err = ctx.Err()
		}
	} else {
		r = <-d.reply
	}
	if r.panic != nil {
		panic(r.panic)
	}
	return r.out, r.err
}

// notify wakes every waiter; h.mu is held.
func (h *Host) notify() {
	if h.changed != nil {
		close(h.changed)
	}
	h.changed = make(chan struct{})
}

// Wait blocks until cond, called with h locked, returns true; what names
// the wait in the failure message.
func (h *Host) Wait(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(Timeout)
	defer deadline.Stop()
	for {
		h.mu.Lock()
		if cond() {
			h.mu.Unlock()
			return
		}
		if h.changed == nil {
			h.changed = make(chan struct{})
		}
		ch := h.changed
		h.mu.Unlock()
		select {
		case <-ch:
		case <-deadline.C:
			t.Fatalf("vmtest: gave up waiting for %s; events so far:\n%s", what, h.formatEvents())
		}
	}
}

// Take waits for the next dispatch of step id to arrive in the host and
// returns it; the test must Reply to it (a capsule dispatch also ends when
// its context is cancelled).
func (h *Host) Take(t testing.TB, id string) *Dispatch {
	t.Helper()
	var d *Dispatch
	h.Wait(t, fmt.Sprintf("the dispatch of %q", id), func() bool {
		for k, w := range h.waiting {
			if w.Call.Step.ID == id {
				d = w
				h.waiting = append(h.waiting[:k], h.waiting[k+1:]...)
				return true
			}
		}
		return false
	})
	return d
}

// Complete takes the next dispatch of step id, replies to it, and waits
// until the VM has written the attempt's plan_step line: replies made one
// Complete after another reach the VM in that order.
func (h *Host) Complete(t testing.TB, id, out string, err error) {
	t.Helper()
	d := h.Take(t, id)
	d.Reply(out, err)
	h.WaitSettled(t, id, d.Call.Attempt)
}

// WaitEvent waits until an event for which match returns true has been
// recorded, and returns it.
func (h *Host) WaitEvent(t testing.TB, what string, match func(vm.Event) bool) vm.Event {
	t.Helper()
	var got vm.Event
	h.Wait(t, what, func() bool {
		for _, e := range h.events {
			if match(e) {
				got = e
				return true
			}
		}
		return false
	})
	return got
}

// WaitSettled waits for the plan_step line of step id's attempt (0 for a
// step settled without a dispatch).
func (h *Host) WaitSettled(t testing.TB, id string, attempt int) vm.Event {
	t.Helper()
	return h.WaitEvent(t, fmt.Sprintf("plan_step of %q attempt %d", id, attempt), func(e vm.Event) bool {
		return e.Kind == vm.PlanStep && e.StepID == id && e.Attempt == attempt
	})
}

// Events returns a copy of the events recorded so far.
func (h *Host) Events() []vm.Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]vm.Event(nil), h.events...)
}

// EventsLocked returns the events recorded so far without copying or
// locking: call it only inside a Wait condition, which holds the lock.
func (h *Host) EventsLocked() []vm.Event { return h.events }

// Refused returns the ids of the steps put to Refuse, in order.
func (h *Host) Refused() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.refused...)
}

// MaxTools returns the most tool dispatches that were in the host at once.
func (h *Host) MaxTools() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.maxTools
}

// Active returns the number of dispatches in the host now.
func (h *Host) Active() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.active
}

func (h *Host) formatEvents() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var s string
	for _, e := range h.events {
		b, _ := e.MarshalJSON()
		s += string(b) + "\n"
	}
	return s
}

// Running is a vm.Run in progress on a goroutine of its own.
type Running struct {
	done chan struct{}
	rep  vm.Report
	err  error
}

// Start runs prog against h on a new goroutine; Wait collects the report.
func Start(ctx context.Context, prog *ir.Program, h vm.Host, opts vm.Options) *Running {
	r := &Running{done: make(chan struct{})}
	go func() {
		defer close(r.done)
		r.rep, r.err = vm.Run(ctx, prog, h, opts)
	}()
	return r
}

// Wait waits for Run to return and returns its report; an error from Run,
// or no return within Timeout, fails the test.
func (r *Running) Wait(t testing.TB) vm.Report {
	t.Helper()
	select {
	case <-r.done:
	case <-time.After(Timeout):
		t.Fatalf("vmtest: vm.Run did not return within %v", Timeout)
	}
	if r.err != nil {
		t.Fatalf("vmtest: vm.Run: %v", r.err)
	}
	return r.rep
}
