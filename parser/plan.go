package parser

import (
	"fmt"
	"unsafe"

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
	plan := &ast.Plan{Span: root.Span, Object: root, Lines: p.lines, Text: p.text}
	if m := root.Get("id"); m != nil && m.Value.Kind != ast.Null {
		plan.IDField = m
		if m.Value.Kind == ast.String {
			plan.ID = m.Value.Str
		}
	}
	if m := root.Get("steps"); m != nil && m.Value.Kind != ast.Null {
		plan.StepsField = m
		if m.Value.Kind == ast.Array {
			if lim.MaxSteps > 0 && p.stepCount > lim.MaxSteps {
				p.diags = append(p.diags, ast.Diagnostic{Span: p.span(m.KeySpan()), Severity: ast.Error, Code: CodeTooManySteps,
					Message: fmt.Sprintf("the plan has %d steps, over the limit of %d; split it into smaller plans", p.stepCount, lim.MaxSteps)})
				return nil, p.diags
			}
			plan.Steps, plan.NotObjects = p.stepList(), p.notObjects
		}
	}
	ast.SortDiagnostics(p.diags)
	return plan, p.diags
}

// stepsList scans the plan's steps list. Its objects become ast.Steps as
// they are scanned, read straight from the tokens (stepObject), while
// its other elements are kept as values with their index (NotObjects);
// the list's own Value holds no elements. Past the step limit nothing is
// built: ParsePlan refuses the plan.
func (p *scanner) stepsList() *ast.Value {
	if !p.enter() {
		return nil
	}
	defer func() { p.depth-- }()
	v := p.newValue(ast.Array)
	r, ok := p.scanList(func() bool {
		i := p.stepCount
		p.stepCount++
		over := p.lim.MaxSteps > 0 && i >= p.lim.MaxSteps
		if p.off < len(p.src) && p.src[p.off] == '{' && !over {
			return p.stepObject(i)
		}
		e := p.value()
		if e == nil {
			return false
		}
		if !over {
			p.notObjects = append(p.notObjects, ast.Elem{Index: i, Value: e})
		}
		return true
	})
	if !ok {
		return nil
	}
	v.Span = r
	return v
}

// newStep returns the next step, cut from a slab.
func (p *scanner) newStep() *ast.Step {
	if len(p.stepSlab) == cap(p.stepSlab) {
		if len(p.stepSlab) > 0 {
			p.stepSlabs = append(p.stepSlabs, p.stepSlab)
		}
		p.stepSlab = make([]ast.Step, 0, min(stepSlabLen, max(16, p.nSteps)))
	}
	p.nSteps++
	p.stepSlab = p.stepSlab[:len(p.stepSlab)+1]
	return &p.stepSlab[len(p.stepSlab)-1]
}

// stepSlabLen is how many steps a full slab holds: 64 KiB of them, so the
// slab, a large allocation, is rounded up to whole pages by less than a
// step.
const stepSlabLen = 65536 / int(unsafe.Sizeof(ast.Step{}))

// stepList returns the steps built, in order, in a slice of their exact
// size: one allocation instead of a doubling series.
func (p *scanner) stepList() []*ast.Step {
	if p.nSteps == 0 {
		return nil
	}
	steps := make([]*ast.Step, 0, p.nSteps)
	for _, slab := range append(p.stepSlabs, p.stepSlab) {
		for i := range slab {
			steps = append(steps, &slab[i])
		}
	}
	return steps
}

// stepObject scans a step object, element index of the steps list, into a
// new ast.Step: no Value is made for the object or its scalar members
// (only input keeps its tree), each member is kept as an ast.Field, and
// the values the plan format gives meaning to are read as they are
// scanned.
func (p *scanner) stepObject(index int) bool {
	if !p.enter() {
		return false
	}
	defer func() { p.depth-- }()
	n := &p.nodes
	s := p.newStep()
	s.Index = index
	fields, keys := p.fieldScratch[:0], p.keyScratch[:0]
	deps, others := p.depScratch[:0], p.otherScratch[:0]
	isList, nkinds := false, 0
	var ifText, kindText string
	var seen map[string]int // unknown keys' members, once there are many
	r, ok := p.scanObject(func(key string, keySpan ast.Range) bool {
		name := ast.StepFieldOf(key)
		f := ast.Field{Name: name}
		f.SetKeySpan(keySpan)
		dup := p.duplicateField(name, key, fields, keys, &seen)
		var text string // a string's decoded text, a number's literal
		var input *ast.Value
		switch {
		case dup != nil:
			if p.value() == nil {
				return false
			}
			p.duplicate(key, keySpan, dup.KeySpan())
			return true
		case name == ast.FieldInput:
			if input = p.value(); input == nil {
				return false
			}
			f.Kind, f.Span, f.Escaped = input.Kind, input.Span, input.Escaped
		case name == ast.FieldDependsOn && p.off < len(p.src) && p.src[p.off] == '[':
			f.Kind = ast.Array
			var ok bool
			deps, others = deps[:0], others[:0]
			if f.Span, ok = p.depList(&deps, &others); !ok {
				return false
			}
		default:
			var ok bool
			if text, ok = p.scalar(&f); !ok {
				return false
			}
		}
		if name == ast.FieldUnknown {
			keys = append(keys, key)
			if seen != nil {
				seen[key] = len(fields)
			}
		}
		fields = append(fields, f)
		if name == ast.FieldUnknown || f.Kind == ast.Null {
			return true
		}
		s.SetField(name, len(fields)-1)
		switch name {
		case ast.FieldID:
			if f.Kind == ast.String {
				s.ID = text
			}
		case ast.FieldTool, ast.FieldShell, ast.FieldCapsule:
			if nkinds++; nkinds == 1 {
				kindText = text
			}
		case ast.FieldInput:
			s.Input = input
		case ast.FieldDependsOn:
			isList = f.Kind == ast.Array
		case ast.FieldIf:
			ifText = text
		case ast.FieldOnError:
			if f.Kind == ast.String {
				s.OnError, _ = ast.ParseOnError(text)
			}
		case ast.FieldRetries:
			if f.Kind == ast.Number {
				r, _ := smallInt(text) // at most 9 digits
				s.Retries = int32(r)
			}
		}
		return true
	})
	p.fieldScratch, p.keyScratch, p.depScratch, p.otherScratch = fields, keys, deps, others
	if !ok {
		return false
	}
	s.Span = r
	s.Fields = cutList(&n.fields, fields)
	if isList {
		s.DependsOn = cutList(&n.deps, deps)
		if s.DependsOn == nil {
			s.DependsOn = []ast.Dep{}
		}
	}
	if len(keys) > 0 || isList && len(others) > 0 {
		s.Extra = &ast.StepExtra{UnknownKeys: append([]string(nil), keys...)}
		if isList {
			s.Extra.DependsOnOther = append([]ast.Field(nil), others...)
		}
	}
	// Fields is now the step's own: the accessors point into it.
	if kinds, nk := s.Kinds(); nk == 1 && kinds[0].Kind == ast.String {
		s.Target = kindText
		switch kinds[0].Name {
		case ast.FieldTool:
			s.Kind = ast.KindTool
		case ast.FieldShell:
			s.Kind = ast.KindShell
			var err error
			if s.Argv, err = splitCommand(n, s.Target); err != nil {
				if s.Extra == nil {
					s.Extra = new(ast.StepExtra)
				}
				s.Extra.ArgvErr = err
			}
		default:
			s.Kind = ast.KindCapsule
		}
	}
	refs := p.refScratch[:0]
	if s.Input != nil {
		refs = collectRefs(n, refs, s.Input, p.src)
	}
	if f := s.IfField(); f != nil && f.Kind == ast.String {
		cs := stringSource(f.Span, f.Escaped, p.src)
		s.Cond, s.CondErr = parseCond(ifText, cs, n)
		if s.Cond != nil {
			refs = ast.CondRefs(refs, s.Cond)
		}
	}
	s.Refs, p.refScratch = cutList(&n.rptrs, refs), refs
	return true
}

// duplicateField returns the member among fields that the member named
// key (name) would duplicate, or nil. keys are the unknown ones' keys;
// seen indexes them once there are many, so a huge step stays linear.
func (p *scanner) duplicateField(name ast.StepField, key string, fields []ast.Field, keys []string, seen *map[string]int) *ast.Field {
	if name != ast.FieldUnknown {
		for i := range fields {
			if fields[i].Name == name {
				return &fields[i]
			}
		}
		return nil
	}
	if *seen != nil {
		if i, ok := (*seen)[key]; ok {
			return &fields[i]
		}
		return nil
	}
	k := 0
	for i := range fields {
		if fields[i].Name == ast.FieldUnknown {
			if keys[k] == key {
				return &fields[i]
			}
			k++
		}
	}
	if len(keys) >= 16 {
		*seen = make(map[string]int, 2*len(keys))
		k := 0
		for i := range fields {
			if fields[i].Name == ast.FieldUnknown {
				(*seen)[keys[k]] = i
				k++
			}
		}
	}
	return nil
}

// scalar scans a value of a step member other than input and a
// depends_on list into f: its kind and range, and, for a string or a
// number, its text. A list or an object is scanned as a value and dropped:
// a rule reports its type.
func (p *scanner) scalar(f *ast.Field) (string, bool) {
	start := p.off
	var text string
	if p.off >= len(p.src) {
		p.unexpected("a value")
		return "", false
	}
	switch c := p.src[p.off]; {
	case c == '"':
		s, escaped, ok := p.str()
		if !ok {
			return "", false
		}
		text, f.Kind, f.Escaped = s, ast.String, escaped
	case c == '-' || (c >= '0' && c <= '9'):
		if !p.scanNumber() {
			return "", false
		}
		text, f.Kind = p.text[start:p.off], ast.Number
	case c == 't' || c == 'f':
		w := "true"
		if c == 'f' {
			w = "false"
		}
		if !p.scanWord(w) {
			return "", false
		}
		f.Kind = ast.Bool
	case c == 'n':
		if !p.scanWord("null") {
			return "", false
		}
		f.Kind = ast.Null
	default:
		v := p.value()
		if v == nil {
			return "", false
		}
		f.Kind = v.Kind
	}
	f.Span = rng(start, p.off)
	return text, true
}

// depList scans a depends_on list: its strings into deps, its other
// entries' kinds and ranges into others.
func (p *scanner) depList(deps *[]ast.Dep, others *[]ast.Field) (ast.Range, bool) {
	if !p.enter() {
		return ast.Range{}, false
	}
	defer func() { p.depth-- }()
	return p.scanList(func() bool {
		start := p.off
		if p.off < len(p.src) && p.src[p.off] == '"' {
			s, _, ok := p.str()
			if !ok {
				return false
			}
			*deps = append(*deps, ast.Dep{ID: s, Span: rng(start, p.off)})
			return true
		}
		var f ast.Field
		if _, ok := p.scalar(&f); !ok {
			return false
		}
		*others = append(*others, f)
		return true
	})
}

// smallInt returns the value of a JSON integer literal that fits an int
// (no fraction, no exponent).
func smallInt(s string) (int, bool) {
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
func StringSource(v *ast.Value, src []byte) CondSource { return stringSource(v.Span, v.Escaped, src) }

// stringSource is StringSource for the string at r in src.
func stringSource(r ast.Range, escaped bool, src []byte) CondSource {
	cs := CondSource{Base: r.Start + 1}
	if escaped {
		cs.Offsets = StringOffsets(src[r.Start:r.End])
	}
	return cs
}

// FieldText returns the text of f, a member of a step of plan: a string's
// decoded text, a number's literal, "" for other kinds.
func FieldText(plan *ast.Plan, f *ast.Field) string {
	raw := plan.Text[f.Span.Start:f.Span.End]
	switch {
	case f.Kind == ast.Number:
		return raw
	case f.Kind != ast.String:
		return ""
	case !f.Escaped:
		return raw[1 : len(raw)-1]
	}
	p := newScanner([]byte(raw), Limits{})
	p.text = raw
	s, _, _ := p.str()
	return s
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
