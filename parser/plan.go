package parser

import (
	"fmt"

	"github.com/planc/planc/ast"
)

// ParsePlan parses a plan document into an *ast.Plan. The diagnostics are
// the document-level ones (see the Code constants); when one of them is
// fatal the plan is nil. Everything else (types, unknown fields, the plan
// format's refusals, docs/plans.md) is left to check, so the plan is built
// tolerantly: a typed field is set only when its value has the right type, and
// its raw member is always kept. `if` conditions are parsed here (Step.Cond or
// Step.CondErr), and every reference in input and if is collected in Step.Refs.
func ParsePlan(src []byte, lim Limits) (*ast.Plan, []ast.Diagnostic) {
	p := newScanner(src, lim)
	p.isPlan = true
	root := p.document()
	if root == nil {
		return nil, p.diags
	}
	if root.Kind != ast.Object {
		p.diags = append(p.diags, ast.Diagnostic{Span: p.span(root.Span), Severity: ast.Error, Code: CodeNotAnObject,
			Message: fmt.Sprintf("a plan is one JSON object, not %s; write {\"id\": \"…\", \"steps\": […]}", root.Kind.Article())})
		return nil, p.diags
	}
	plan := &ast.Plan{Span: root.Span, Object: root, Lines: p.lines}
	if m := root.Get("id"); m != nil && m.Value.Kind != ast.Null {
		plan.IDField = m
		if m.Value.Kind == ast.String {
			plan.ID = m.Value.Str
		}
	}
	if m := root.Get("steps"); m != nil && m.Value.Kind != ast.Null {
		plan.StepsField = m
		if m.Value.Kind == ast.Array {
			if lim.MaxSteps > 0 && len(m.Value.Elems()) > lim.MaxSteps {
				p.diags = append(p.diags, ast.Diagnostic{Span: p.span(m.KeySpan()), Severity: ast.Error, Code: CodeTooManySteps,
					Message: fmt.Sprintf("the plan has %d steps, over the limit of %d; split it into smaller plans", len(m.Value.Elems()), lim.MaxSteps)})
				return nil, p.diags
			}
			plan.Steps = p.steps
		}
	}
	ast.SortDiagnostics(p.diags)
	return plan, p.diags
}

// field returns the member named key unless it is absent or null (S3: null
// is the same as leaving the field out).
func field(obj *ast.Value, key string) *ast.Member {
	m := obj.Get(key)
	if m == nil || m.Value.Kind == ast.Null {
		return nil
	}
	return m
}

// step makes e, the next element of the steps list, into an ast.Step when
// it is an object. Past the step limit nothing is built: ParsePlan refuses
// the plan.
func (p *scanner) step(e *ast.Value) {
	i := p.stepCount
	p.stepCount++
	if e.Kind != ast.Object || (p.lim.MaxSteps > 0 && i >= p.lim.MaxSteps) {
		return
	}
	if len(p.stepSlab) == cap(p.stepSlab) {
		p.stepSlab = make([]ast.Step, 0, min(256, max(16, len(p.steps))))
	}
	p.stepSlab = p.stepSlab[:len(p.stepSlab)+1]
	s := &p.stepSlab[len(p.stepSlab)-1]
	p.buildStep(s, i, e)
	p.steps = append(p.steps, s)
}

func (p *scanner) buildStep(s *ast.Step, index int, obj *ast.Value) {
	n, src := &p.nodes, p.src
	s.Index, s.Object = index, obj
	var kinds [3]*ast.Member // more than three only through duplicate keys, which are dropped
	nk := 0
	for _, m := range obj.Members() {
		if m.Value.Kind == ast.Null {
			continue
		}
		switch m.Key {
		case "id":
			s.IDField = m
			if m.Value.Kind == ast.String {
				s.ID = m.Value.Str
			}
		case "tool", "shell", "capsule":
			kinds[nk] = m
			nk++
		case "input":
			s.InputField = m
		case "depends_on":
			s.DependsOnField = m
			if m.Value.Kind == ast.Array {
				s.DependsOn = p.dependsOn(m.Value.Elems())
			}
		case "if":
			s.IfField = m
		case "on_error":
			s.OnErrorField = m
			if m.Value.Kind == ast.String {
				s.OnError, _ = ast.ParseOnError(m.Value.Str)
			}
		case "retries":
			s.RetriesField = m
			if n, ok := smallInt(m.Value); ok {
				s.Retries = n
			}
		}
	}
	s.Kinds = cutList(&n.mptrs, kinds[:nk])
	if len(s.Kinds) == 1 && s.Kinds[0].Value.Kind == ast.String {
		s.TargetField = s.Kinds[0]
		s.Target = s.TargetField.Value.Str
		switch s.TargetField.Key {
		case "tool":
			s.Kind = ast.KindTool
		case "shell":
			s.Kind = ast.KindShell
			s.Argv, s.ArgvErr = splitCommand(n, s.Target)
		default:
			s.Kind = ast.KindCapsule
		}
	}
	refs := p.refScratch[:0]
	if s.InputField != nil {
		refs = collectRefs(n, refs, s.InputField.Value, src)
	}
	if m := s.IfField; m != nil && m.Value.Kind == ast.String {
		cs := StringSource(m.Value, src)
		s.Cond, s.CondErr = parseCond(m.Value.Str, cs, n)
		if s.Cond != nil {
			refs = ast.CondRefs(refs, s.Cond)
		}
	}
	s.Refs, p.refScratch = cutList(&n.rptrs, refs), refs
}

// dependsOn returns the string entries of a depends_on list: the list's
// own elements when they all are (the usual case), else a copy without the
// others. An empty list gives an empty, non-nil slice.
func (p *scanner) dependsOn(es []*ast.Value) []*ast.Value {
	for k, e := range es {
		if e.Kind != ast.String {
			ds := append(p.depScratch[:0], es[:k]...)
			for _, e := range es[k+1:] {
				if e.Kind == ast.String {
					ds = append(ds, e)
				}
			}
			p.depScratch = ds
			if len(ds) == 0 {
				return []*ast.Value{}
			}
			return cutList(&p.nodes.vptrs, ds)
		}
	}
	if es == nil {
		return []*ast.Value{}
	}
	return es
}

// smallInt returns the value of a JSON integer literal that fits an int
// (no fraction, no exponent).
func smallInt(v *ast.Value) (int, bool) {
	if v.Kind != ast.Number {
		return 0, false
	}
	s := v.Str
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		s = s[1:]
	}
	if len(s) == 0 || len(s) > 9 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// collectRefs marks every string in v whose whole text is a reference
// (semantics S6) and appends the references to dst, in source order. Object
// keys are never references (S7).
func collectRefs(n *nodes, dst []*ast.Ref, v *ast.Value, src []byte) []*ast.Ref {
	switch v.Kind {
	case ast.String:
		if r := parseRef(n, v.Str); r != nil {
			cs := StringSource(v, src)
			r.Span = cs.Span(0, len(v.Str))
			r.SetParts(cs.Span(1, 1+len(r.StepID)), cs.Span(2+len(r.StepID), len(v.Str)))
			v.SetRef(r)
			dst = append(dst, r)
		}
	case ast.Array:
		for _, e := range v.Elems() {
			dst = collectRefs(n, dst, e, src)
		}
	case ast.Object:
		for _, m := range v.Members() {
			dst = collectRefs(n, dst, m.Value, src)
		}
	}
	return dst
}

// StringSource returns the mapping from the decoded text of the JSON string
// v onto the file src it was parsed from.
func StringSource(v *ast.Value, src []byte) CondSource {
	cs := CondSource{Base: v.Span.Start + 1}
	if v.Escaped {
		cs.Offsets = StringOffsets(src[v.Span.Start:v.Span.End])
	}
	return cs
}

// IsRefIDByte reports whether c may appear in the step id of a reference.
func IsRefIDByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// IsRefFieldByte reports whether c may appear in the field of a reference.
func IsRefFieldByte(c byte) bool { return c != '-' && IsRefIDByte(c) }

// ParseRef returns the reference s is, when the whole of s has the shape
// $ID.FIELD (semantics S6), or nil. Spans are left for the caller to set.
func ParseRef(s string) *ast.Ref { return parseRef(nil, s) }

// parseRef is ParseRef with the node taken from n.
func parseRef(n *nodes, s string) *ast.Ref {
	if len(s) < 4 || s[0] != '$' {
		return nil
	}
	i := 1
	for i < len(s) && IsRefIDByte(s[i]) {
		i++
	}
	if i == 1 || i >= len(s)-1 || s[i] != '.' {
		return nil
	}
	for j := i + 1; j < len(s); j++ {
		if !IsRefFieldByte(s[j]) {
			return nil
		}
	}
	r := n.ref()
	*r = ast.Ref{StepID: s[1:i], FieldName: s[i+1:], Field: ast.RefFieldOf(s[i+1:])}
	return r
}
