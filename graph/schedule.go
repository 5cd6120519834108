package graph

import (
	"container/heap"
	"fmt"
	"slices"

	"github.com/planc/planc/ir"
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
	// in dispatch order, which is plan order. Steps of one tick start
	// together.
	Ticks [][]int32
	// Tick is, for each step by index, the tick it is dispatched at.
	Tick []int
	// ToolLane is the tool steps in the order they are dispatched: at most
	// one tool step runs at a time (S17).
	ToolLane []int32
}

// Simulate replays semantics S17 over p: a step is ready when all its
// dependencies have settled; among ready steps dispatch goes in plan order;
// shell and capsule steps run concurrently (up to opts.MaxParallel); at most
// one tool step runs at a time, the ready tool step earliest in plan order
// going next.
//
// Real durations are unknown, so the simulation assumes what makes the
// order well defined: every step is dispatched (every condition holds),
// every dispatch succeeds at its first attempt, and every step takes one
// tick. A step whose condition turns out false settles at once without
// dispatch, taking no time and no place in the lane, and a real run may
// then dispatch later steps sooner; the order of the lane among the steps
// that do run is the one shown unless durations differ enough to change
// which tool steps are ready together.
//
// Simulate returns an error only for a program that fails Validate (a
// lowered program never does).
func Simulate(p *ir.Program, opts Options) (*Schedule, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("graph: invalid program: %w", err)
	}
	n := len(p.Steps)
	s := &Schedule{Tick: make([]int, n)}
	remaining := slices.Clone(p.InDegree)
	var toolQ, otherQ queue // queued steps, taken in plan order
	push := func(i int32) {
		if p.Steps[i].Kind == ir.KindTool {
			heap.Push(&toolQ, i)
		} else {
			heap.Push(&otherQ, i)
		}
	}
	for _, r := range p.Roots {
		push(r)
	}
	for toolQ.Len() > 0 || otherQ.Len() > 0 {
		t := len(s.Ticks)
		var started []int32
		if toolQ.Len() > 0 {
			i := heap.Pop(&toolQ).(int32)
			started = append(started, i)
			s.ToolLane = append(s.ToolLane, i)
		}
		for n := 0; otherQ.Len() > 0 && (opts.MaxParallel <= 0 || n < opts.MaxParallel); n++ {
			started = append(started, heap.Pop(&otherQ).(int32))
		}
		slices.Sort(started)
		for _, i := range started {
			s.Tick[i] = t
		}
		s.Ticks = append(s.Ticks, started)
		// One tick later every step started now has settled: their
		// dependents whose last dependency this was become ready.
		for _, i := range started {
			for _, d := range p.Steps[i].Dependents {
				if remaining[d]--; remaining[d] == 0 {
					push(d)
				}
			}
		}
	}
	return s, nil
}

// queue is a min-heap of step indices (container/heap): whatever waits
// is taken in plan order (S17).
type queue []int32

func (q queue) Len() int           { return len(q) }
func (q queue) Less(i, j int) bool { return q[i] < q[j] }
func (q queue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *queue) Push(x any)        { *q = append(*q, x.(int32)) }
func (q *queue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}
