package graph

import (
	"fmt"
	"slices"

	"github.com/planc/planc/ir"
	"github.com/planc/planc/vm"
)

// Options tune Simulate.
type Options struct {
	// MaxParallel bounds how many shell and capsule steps run at once, as
	// vm.Options.MaxParallel does; 0 means no bound. The tool lane is one
	// step at a time whatever this says (S17).
	MaxParallel int
}

// Schedule is the order in which the VM would dispatch a program's steps
// if every step were dispatched and succeeded, every step taking the same
// time (one tick): see Simulate.
type Schedule struct {
	// Ticks lists, for each tick from 0, the steps dispatched at that tick
	// in plan order. Steps of one tick start together.
	Ticks [][]int32
	// Tick is, for each step by index, the tick it is dispatched at.
	Tick []int
	// Order is every step in the order the VM dispatches it.
	Order []int32
	// ToolLane is the tool steps in the order they are dispatched: at most
	// one tool step runs at a time (S17).
	ToolLane []int32
}

// Simulate replays the VM's scheduling (semantics S17) over p with the
// VM's own policy, vm.Scheduler, on a clock of ticks: a step is
// ready when all its dependencies have settled; among ready steps dispatch
// goes in plan order; shell and capsule steps run concurrently (up to
// opts.MaxParallel); at most one tool step runs at a time, the ready tool
// step earliest in plan order going next.
//
// Real durations are unknown, so the simulation assumes what makes the
// order well defined: every step is dispatched (every condition holds),
// every dispatch succeeds at its first attempt, and every step takes one
// tick. The steps of a tick end together, in an order: shell and capsule
// steps in the order they were dispatched, then the tool step. Like the
// VM, it settles them one at a time and dispatches what may go after
// each: a step made ready at the end of tick t is dispatched at tick t+1,
// a slot freed by one step is taken by the step earliest in plan order
// ready at that moment, and the tool lane, freed last, by the ready tool
// step earliest in plan order once the whole tick has ended. The VM run
// with steps ending in that order dispatches exactly this schedule (the
// tests check it). A step whose
// condition turns out false settles at once without dispatch, taking no
// time and no place in the lane, and a real run may then dispatch later
// steps sooner; the order of the lane among the steps that do run is the
// one shown unless durations differ enough to change which tool steps are
// ready together.
//
// Simulate returns an error only for a program that fails Validate (a
// lowered program never does).
func Simulate(p *ir.Program, opts Options) (*Schedule, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("graph: invalid program: %w", err)
	}
	n := len(p.Steps)
	s := &Schedule{Tick: make([]int, n), Order: make([]int32, 0, n)}
	remaining := slices.Clone(p.InDegree)
	sch := vm.NewScheduler(opts.MaxParallel, n) // the VM's own policy
	for _, r := range p.Roots {
		sch.Ready(r, p.Steps[r].Kind)
	}
	now := 0
	// dispatch starts, at tick now, every ready step that may go, earliest
	// in plan order first, as the VM's advance does.
	dispatch := func() {
		for sch.CanDispatch() {
			i := sch.Pop()
			sch.Start(p.Steps[i].Kind)
			if p.Steps[i].Kind == ir.KindTool {
				s.ToolLane = append(s.ToolLane, i)
			}
			s.Tick[i] = now
			s.Order = append(s.Order, i)
		}
	}
	dispatch()
	// The steps of tick t were all dispatched before any of them ends (a
	// step dispatched while they end belongs to tick t+1). They end one at
	// a time, shell and capsule steps in dispatch order and the tool step
	// last: each frees its place and makes its dependents whose last
	// dependency it was ready, and what may go then is dispatched at t+1.
	for k, t := 0, 0; k < len(s.Order); t++ {
		end := k
		for end < len(s.Order) && s.Tick[s.Order[end]] == t {
			end++
		}
		tool := int32(-1)
		settle := func(i int32) {
			sch.End(p.Steps[i].Kind)
			for _, d := range p.Steps[i].Dependents {
				if remaining[d]--; remaining[d] == 0 {
					sch.Ready(d, p.Steps[d].Kind)
				}
			}
			now = t + 1
			dispatch()
		}
		for _, i := range s.Order[k:end] {
			if p.Steps[i].Kind == ir.KindTool {
				tool = i
				continue
			}
			settle(i)
		}
		if tool >= 0 {
			settle(tool)
		}
		k = end
	}
	for i, t := range s.Tick {
		for len(s.Ticks) <= t {
			s.Ticks = append(s.Ticks, nil)
		}
		s.Ticks[t] = append(s.Ticks[t], int32(i))
	}
	return s, nil
}
