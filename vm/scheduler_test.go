package vm_test

import (
	"testing"

	"github.com/planc/planc/ir"
	"github.com/planc/planc/vm"
)

// TestScheduler: the policy the VM and graph.Simulate share (S17). Among
// the steps that may go the earliest in plan order goes first, whichever
// queue it waits in; one tool step at a time; at most MaxParallel shell
// and capsule steps; a popped step takes nothing until it Starts; Clear
// drops what waits but not what runs.
func TestScheduler(t *testing.T) {
	s := vm.NewScheduler(2, 8)
	if s.CanDispatch() {
		t.Fatal("an empty scheduler dispatches")
	}
	for _, r := range []struct {
		i int32
		k ir.Kind
	}{{5, ir.KindShell}, {1, ir.KindTool}, {3, ir.KindTool}, {2, ir.KindShell}, {4, ir.KindCapsule}, {0, ir.KindShell}} {
		s.Ready(r.i, r.k)
	}
	pop := func(k ir.Kind) int32 {
		t.Helper()
		if !s.CanDispatch() {
			t.Fatal("nothing may go")
		}
		i := s.Pop()
		s.Start(k)
		return i
	}
	// 0 (shell), 1 (tool: takes the lane), 2 (shell: second slot); then
	// 3 waits for the lane and 4, 5 for a slot.
	for _, want := range []struct {
		i int32
		k ir.Kind
	}{{0, ir.KindShell}, {1, ir.KindTool}, {2, ir.KindShell}} {
		if got := pop(want.k); got != want.i {
			t.Fatalf("popped %d, want %d", got, want.i)
		}
	}
	if s.CanDispatch() {
		t.Fatal("dispatches with the lane taken and both slots full")
	}
	s.End(ir.KindShell) // a slot frees: 4 before 5, the lane still taken
	if got := pop(ir.KindCapsule); got != 4 {
		t.Fatalf("popped %d after a slot freed, want 4", got)
	}
	s.End(ir.KindTool) // the lane frees: 3, the earliest that may go
	if got := pop(ir.KindTool); got != 3 {
		t.Fatalf("popped %d after the lane freed, want 3", got)
	}
	// A popped step that never starts (a false condition) takes nothing.
	s.End(ir.KindShell)
	if got := s.Pop(); got != 5 {
		t.Fatalf("popped %d, want 5", got)
	}
	s.Ready(6, ir.KindShell)
	if got := pop(ir.KindShell); got != 6 {
		t.Fatalf("popped %d, want 6: the unstarted 5 kept a slot", got)
	}
	s.Ready(7, ir.KindShell)
	s.Clear()
	if s.CanDispatch() {
		t.Fatal("dispatches after Clear")
	}
	// Zero or less: no bound on shell and capsule steps.
	u := vm.NewScheduler(0, 0)
	for i := range int32(100) {
		u.Ready(i, ir.KindShell)
	}
	for range 100 {
		if !u.CanDispatch() {
			t.Fatal("an unbounded scheduler stopped")
		}
		u.Pop()
		u.Start(ir.KindShell)
	}
}
