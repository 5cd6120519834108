package vm

import "github.com/planc/planc/ir"

// Scheduler is the dispatch policy of semantics S17, kept once: the VM runs
// it, and graph.Simulate replays it for the dry run. A step whose
// dependencies have all settled is made Ready; it then waits in one of two
// queues, each taken in plan order: tool steps for the tool lane (one tool
// step at a time), shell and capsule steps for a slot (at most MaxParallel
// at once, unbounded when that is 0). Among the steps that may go, the one
// earliest in plan order goes first, whichever queue it waits in.
//
// The Scheduler only orders: the caller says when a step it popped really
// starts (Start: a step settled at dispatch by its condition never takes
// the lane or a slot) and when it ends (End). The zero Scheduler has no
// bound on shell and capsule steps.
type Scheduler struct {
	maxParallel int
	toolQ       heap // ready tool steps waiting for the lane
	otherQ      heap // ready shell and capsule steps waiting for a slot
	toolBusy    bool // the tool lane is taken
	running     int  // shell and capsule steps started and not ended
}

// NewScheduler returns a Scheduler that lets at most maxParallel shell and
// capsule steps run at once (0 or less: no bound), with room for n steps.
func NewScheduler(maxParallel, n int) *Scheduler {
	s := &Scheduler{}
	s.init(maxParallel, n)
	return s
}

func (s *Scheduler) init(maxParallel, n int) {
	s.maxParallel = max(maxParallel, 0)
	// A plan's ready steps rarely number more than a fraction of it.
	s.otherQ.a = make([]int32, 0, min(n, 256))
	s.toolQ.a = make([]int32, 0, min(n, 256))
}

// Ready queues step i, of kind k, whose dependencies have all settled.
func (s *Scheduler) Ready(i int32, k ir.Kind) {
	if k == ir.KindTool {
		s.toolQ.push(i)
	} else {
		s.otherQ.push(i)
	}
}

// CanDispatch reports whether a queued step may go now: a tool step when
// the lane is free, a shell or capsule step when a slot is free.
func (s *Scheduler) CanDispatch() bool { return s.queue() != nil }

// Pop removes and returns the step that goes next: among the queued steps
// that may go now, the earliest in plan order. It must follow a true
// CanDispatch.
func (s *Scheduler) Pop() int32 { return s.queue().pop() }

func (s *Scheduler) queue() *heap {
	tool := !s.toolBusy && s.toolQ.len() > 0
	other := s.otherQ.len() > 0 && (s.maxParallel == 0 || s.running < s.maxParallel)
	switch {
	case tool && (!other || s.toolQ.min() < s.otherQ.min()):
		return &s.toolQ
	case other:
		return &s.otherQ
	}
	return nil
}

// Start records that a popped step of kind k started: a tool step takes
// the lane, any other a slot.
func (s *Scheduler) Start(k ir.Kind) {
	if k == ir.KindTool {
		s.toolBusy = true
	} else {
		s.running++
	}
}

// End records that a started step of kind k ended, freeing its lane or slot.
func (s *Scheduler) End(k ir.Kind) {
	if k == ir.KindTool {
		s.toolBusy = false
	} else {
		s.running--
	}
}

// Clear drops every queued step (a stopped or cancelled plan dispatches
// nothing more); started steps keep their lane and slots until they end.
func (s *Scheduler) Clear() {
	s.toolQ.clear()
	s.otherQ.clear()
}
