package ir

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/check"
	"github.com/planc/planc/internal/jsonstr"
)

// Lower lowers a plan check accepted into a Program. It trusts what check
// proved (one step per id, every dependency and reference naming a step,
// no cycle, a kind and a splittable command line for every step) and does
// not check it again. An error means a checked plan it still cannot lower:
// a fault of planc's, never of the plan, and never a panic.
func Lower(checked *check.Plan) (*Program, error) {
	p := checked.AST()
	n := len(p.Steps)
	l := &lowerer{index: make(map[string]int32, n)}
	for i, s := range p.Steps {
		l.index[s.ID] = int32(i)
	}
	prog := &Program{ID: p.ID, Steps: make([]Step, n), InDegree: make([]int32, n)}
	ndeps := 0
	for _, s := range p.Steps {
		ndeps += len(s.DependsOn)
	}
	l.deps = make([]int32, 0, ndeps)
	for i, s := range p.Steps {
		if err := l.step(&prog.Steps[i], s); err != nil {
			return nil, fmt.Errorf("lower: step %q: %w", s.ID, err)
		}
		prog.InDegree[i] = int32(len(prog.Steps[i].Deps))
		if len(prog.Steps[i].Deps) == 0 {
			prog.Roots = append(prog.Roots, int32(i))
		}
	}
	linkDependents(prog)
	prog.valid = true
	return prog, nil
}

// lowerer holds what lowering one plan shares between its steps.
type lowerer struct {
	index map[string]int32
	deps  []int32 // one backing array for every step's Deps
	buf   []byte  // scratch for input templates
}

func (l *lowerer) step(st *Step, s *ast.Step) error {
	st.ID, st.Target, st.Retries = s.ID, s.Target, int(s.Retries)
	switch s.Kind {
	case KindTool, KindShell, KindCapsule:
		st.Kind = s.Kind
	default:
		return errors.New("declares none of tool, shell, capsule, or more than one")
	}
	switch s.OnError {
	case OnErrorFail, OnErrorSkip, OnErrorContinue:
		st.OnError = s.OnError
	default:
		return fmt.Errorf("on_error %d is not fail, skip or continue", s.OnError)
	}
	if s.Retries < 0 {
		return fmt.Errorf("retries %d is negative", s.Retries)
	}
	if s.IfField() != nil && s.Cond == nil {
		return errors.New("its condition did not parse")
	}
	if st.Kind == KindShell {
		// S14: split once, by the parser; the host resolves the first word.
		if s.ArgvErr() != nil {
			return fmt.Errorf("command line %q cannot be split: %v", s.Target, s.ArgvErr())
		}
		if len(s.Argv) == 0 {
			return fmt.Errorf("command line %q has no words", s.Target)
		}
		st.Argv = s.Argv
	}
	if err := l.depends(st, s); err != nil {
		return err
	}
	// Decision: a shell step ignores its input (docs/plans.md, "Shell steps";
	// S14), so the references in it are not slots and are never resolved (S9).
	var input *ast.Value
	if st.Kind != KindShell {
		input = s.Input
	}
	slot, err := l.slots(st, input, s.Cond)
	if err != nil {
		return err
	}
	if s.Cond != nil {
		if st.Cond, err = compileCond(s.Cond, slot); err != nil {
			return err
		}
	}
	switch st.Kind {
	case KindTool:
		if input != nil {
			st.Input, err = l.template(input, slot)
		}
	case KindCapsule:
		st.Objective, err = objective(input, slot)
	}
	return err
}

func (l *lowerer) depends(st *Step, s *ast.Step) error {
	start := len(l.deps)
	for _, d := range s.DependsOn {
		j, ok := l.index[d.ID]
		if !ok {
			return fmt.Errorf("depends on %q, which the plan does not declare", d.ID)
		}
		if slices.Contains(l.deps[start:], j) {
			continue
		}
		l.deps = append(l.deps, j)
	}
	st.Deps = l.deps[start:len(l.deps):len(l.deps)]
	if len(st.Deps) == 0 {
		st.Deps = nil
	}
	return nil
}

// slots numbers the distinct references of input and cond in source order
// (S9) into st.Refs, and returns the function mapping a reference to its
// slot.
func (l *lowerer) slots(st *Step, input *ast.Value, cond ast.Cond) (func(*ast.Ref) (int32, error), error) {
	refs := ast.CondRefs(inputRefs(nil, input), cond)
	for _, r := range refs {
		if r == nil {
			return nil, errors.New("a reference is missing")
		}
	}
	slices.SortStableFunc(refs, func(a, b *ast.Ref) int { return cmp.Compare(a.Span.Start, b.Span.Start) })
	for _, r := range refs {
		ref, err := l.ref(r)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(st.Refs, ref) {
			st.Refs = append(st.Refs, ref)
		}
	}
	return func(r *ast.Ref) (int32, error) {
		ref, err := l.ref(r)
		if err != nil {
			return 0, err
		}
		if k := slices.Index(st.Refs, ref); k >= 0 {
			return int32(k), nil
		}
		return 0, fmt.Errorf("reference %s has no slot", r)
	}, nil
}

// inputRefs appends the references in v, depth first in source order, to
// dst.
func inputRefs(dst []*ast.Ref, v *ast.Value) []*ast.Ref {
	ast.Walk(v, func(v *ast.Value) bool {
		if v.Kind == ast.String && v.Ref() != nil {
			dst = append(dst, v.Ref())
		}
		return true
	})
	return dst
}

func (l *lowerer) ref(r *ast.Ref) (Ref, error) {
	if r == nil {
		return Ref{}, errors.New("a reference is missing")
	}
	j, ok := l.index[r.StepID]
	if !ok {
		return Ref{}, fmt.Errorf("reference %s names a step the plan does not declare", r)
	}
	switch r.Field {
	case ast.RefOutput:
		return Ref{Step: j, Field: FieldOutput}, nil
	case ast.RefStatus:
		return Ref{Step: j, Field: FieldStatus}, nil
	default:
		return Ref{}, fmt.Errorf("reference %s reads neither output nor status", r)
	}
}

// objective lowers a capsule step's input, a string or {"objective": …}
// (S13), either of which may be a reference.
func objective(v *ast.Value, slot func(*ast.Ref) (int32, error)) (*Text, error) {
	if v != nil && v.Kind == ast.Object && len(v.Members()) == 1 && v.Members()[0].Key == "objective" {
		v = v.Members()[0].Value
	}
	if v == nil || v.Kind != ast.String {
		return nil, errors.New(`a capsule step's input must be a string or {"objective": "<text>"}`)
	}
	if v.Ref() == nil {
		return &Text{Const: v.Str, Slot: -1}, nil
	}
	k, err := slot(v.Ref())
	if err != nil {
		return nil, err
	}
	return &Text{Slot: k}, nil
}

// template encodes v as canonical JSON, leaving a hole for each reference.
func (l *lowerer) template(v *ast.Value, slot func(*ast.Ref) (int32, error)) (*Template, error) {
	t := &Template{}
	buf, err := l.encode(l.buf[:0], v, t, slot, 0)
	if err != nil {
		return nil, err
	}
	l.buf = buf
	t.Text = slices.Clone(buf)
	return t, nil
}

func (l *lowerer) encode(dst []byte, v *ast.Value, t *Template, slot func(*ast.Ref) (int32, error), depth int) ([]byte, error) {
	if v == nil {
		return nil, errors.New("input holds a missing value")
	}
	if depth > 10000 {
		return nil, errors.New("input is nested too deeply")
	}
	switch v.Kind {
	case ast.Null:
		return append(dst, "null"...), nil
	case ast.Bool:
		if v.Bool {
			return append(dst, "true"...), nil
		}
		return append(dst, "false"...), nil
	case ast.Number:
		if v.Str == "" {
			return nil, errors.New("input holds a number with no text")
		}
		return append(dst, v.Str...), nil
	case ast.String:
		if v.Ref() == nil {
			return jsonstr.Append(dst, v.Str), nil
		}
		k, err := slot(v.Ref())
		if err != nil {
			return nil, err
		}
		t.Holes = append(t.Holes, Hole{Offset: int32(len(dst)), Slot: k})
		return dst, nil
	case ast.Array:
		dst = append(dst, '[')
		for i, e := range v.Elems() {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = l.encode(dst, e, t, slot, depth+1); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	case ast.Object:
		dst = append(dst, '{')
		for i, m := range v.Members() {
			if m == nil {
				return nil, errors.New("input holds a missing member")
			}
			if i > 0 {
				dst = append(dst, ',')
			}
			// S7: keys are never references.
			dst = jsonstr.Append(dst, m.Key)
			dst = append(dst, ':')
			var err error
			if dst, err = l.encode(dst, m.Value, t, slot, depth+1); err != nil {
				return nil, err
			}
		}
		return append(dst, '}'), nil
	default:
		return nil, fmt.Errorf("input holds a value of unknown kind %d", v.Kind)
	}
}
