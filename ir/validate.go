package ir

import (
	"errors"
	"fmt"
	"slices"
)

// Validate reports whether p keeps every invariant the VM relies on:
// indices in range, Deps, Dependents, InDegree and Roots agreeing, no
// dependency cycle, every condition, template and objective naming slots
// and constants that exist, jumps going forward. A Program from Lower is
// valid by construction; Validate is for programs built by hand.
func (p *Program) Validate() error {
	if p == nil {
		return errors.New("ir: nil program")
	}
	if p.valid {
		return nil
	}
	n := len(p.Steps)
	if p.ID == "" {
		return errors.New("ir: the program has no plan id")
	}
	if len(p.InDegree) != n {
		return fmt.Errorf("ir: %d in-degrees for %d steps", len(p.InDegree), n)
	}
	ids := make(map[string]bool, n)
	var roots []int32
	want := make([][]int32, n)
	for i := range p.Steps {
		s := &p.Steps[i]
		if err := s.validate(n); err != nil {
			return fmt.Errorf("ir: step %d %q: %w", i, s.ID, err)
		}
		if ids[s.ID] {
			return fmt.Errorf("ir: two steps have the id %q", s.ID)
		}
		ids[s.ID] = true
		if p.InDegree[i] != int32(len(s.Deps)) {
			return fmt.Errorf("ir: step %d %q: in-degree %d but %d dependencies", i, s.ID, p.InDegree[i], len(s.Deps))
		}
		if len(s.Deps) == 0 {
			roots = append(roots, int32(i))
		}
		for _, d := range s.Deps {
			want[d] = append(want[d], int32(i))
		}
	}
	if !slices.Equal(roots, p.Roots) {
		return fmt.Errorf("ir: roots %v, want %v", p.Roots, roots)
	}
	for i := range p.Steps {
		if !slices.Equal(want[i], p.Steps[i].Dependents) {
			return fmt.Errorf("ir: step %d %q: dependents %v, want %v", i, p.Steps[i].ID, p.Steps[i].Dependents, want[i])
		}
	}
	if cyc := findCycle(p); cyc != "" {
		return fmt.Errorf("ir: dependency cycle: %s", cyc)
	}
	return nil
}

func (s *Step) validate(n int) error {
	if s.ID == "" {
		return errors.New("no id")
	}
	switch s.Kind {
	case KindTool:
		if s.Objective != nil || s.Argv != nil {
			return errors.New("a tool step has an objective or argv")
		}
	case KindShell:
		if len(s.Argv) == 0 {
			return errors.New("a shell step has no argv")
		}
		if s.Input != nil || s.Objective != nil {
			return errors.New("a shell step has an input or an objective")
		}
	case KindCapsule:
		if s.Objective == nil {
			return errors.New("a capsule step has no objective")
		}
		if s.Input != nil || s.Argv != nil {
			return errors.New("a capsule step has an input or argv")
		}
	default:
		return fmt.Errorf("invalid kind %d", s.Kind)
	}
	if s.OnError > OnErrorContinue {
		return fmt.Errorf("invalid on_error %d", s.OnError)
	}
	if s.Retries < 0 {
		return fmt.Errorf("negative retries %d", s.Retries)
	}
	for _, d := range s.Deps {
		if d < 0 || int(d) >= n {
			return fmt.Errorf("dependency %d out of range", d)
		}
	}
	for _, d := range s.Dependents {
		if d < 0 || int(d) >= n {
			return fmt.Errorf("dependent %d out of range", d)
		}
	}
	for _, r := range s.Refs {
		if r.Step < 0 || int(r.Step) >= n || r.Field > FieldStatus {
			return fmt.Errorf("invalid reference slot %+v", r)
		}
	}
	slots := int32(len(s.Refs))
	if c := s.Cond; c != nil {
		if err := c.validate(slots); err != nil {
			return err
		}
	}
	if t := s.Input; t != nil {
		last := int32(0)
		for _, h := range t.Holes {
			if h.Offset < last || int(h.Offset) > len(t.Text) || h.Slot < 0 || h.Slot >= slots {
				return fmt.Errorf("invalid input hole %+v", h)
			}
			last = h.Offset
		}
	}
	if o := s.Objective; o != nil && o.Slot >= slots {
		return fmt.Errorf("objective slot %d out of range", o.Slot)
	}
	return nil
}

func (c *Cond) validate(slots int32) error {
	if len(c.Code) == 0 {
		return errors.New("empty condition code")
	}
	operand := func(a int32) bool { return a < slots && ^a < int32(len(c.Consts)) }
	for pc, in := range c.Code {
		switch {
		case in.Op.IsCompare():
			if !operand(in.A) || !operand(in.B) {
				return fmt.Errorf("condition instruction %d: operand out of range", pc)
			}
		case in.Op == OpJumpIfFalse || in.Op == OpJumpIfTrue:
			if int(in.A) <= pc || int(in.A) > len(c.Code) {
				return fmt.Errorf("condition instruction %d: jump target %d out of range", pc, in.A)
			}
		default:
			return fmt.Errorf("condition instruction %d: invalid opcode %d", pc, in.Op)
		}
	}
	if !c.Code[len(c.Code)-1].Op.IsCompare() {
		return errors.New("condition ends with a jump")
	}
	return nil
}
