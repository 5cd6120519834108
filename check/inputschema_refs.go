package check

import (
	"errors"
	"slices"
	"strconv"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/planc/planc/ast"
)

// A whole-string reference in a step's input stands for every value it
// may take when the step runs (S8): $x.status one of the three statuses,
// $x.output null or any text. The instance validated holds one of them in
// its place; this file decides, from the schema library's failures,
// whether some other value would have passed.

// satisfiable reports whether the failure e could vanish once the
// references take their values: every failure inside it could, or (for
// anyOf and a oneOf that nothing matched) one alternative's could.
func (v *validation) satisfiable(e *jsonschema.ValidationError) bool {
	if v.refs == nil {
		return false
	}
	switch k := e.ErrorKind.(type) {
	case *kind.AnyOf:
		return slices.ContainsFunc(e.Causes, v.satisfiable)
	case *kind.OneOf:
		if k.Subschemas == nil {
			return slices.ContainsFunc(e.Causes, v.satisfiable)
		}
		return v.refs.under(e.InstanceLocation) // two matched: another value may match one
	}
	if len(e.Causes) > 0 {
		for _, c := range e.Causes {
			if !v.satisfiable(c) {
				return false
			}
		}
		return true
	}
	if r := v.refs.at(e.InstanceLocation); r != nil {
		return v.refOK(e, r)
	}
	// A failure about an object's or a list's shape does not depend on
	// the values inside it; any other (const, enum, uniqueItems, not, …)
	// may, when a reference stands inside.
	return !shapeOnly(e.ErrorKind) && v.refs.under(e.InstanceLocation)
}

// shapeOnly reports whether a failure of kind k depends only on the type,
// keys or length of the value it is about.
func shapeOnly(k jsonschema.ErrorKind) bool {
	switch k.(type) {
	case *kind.Type, *kind.Required, *kind.AdditionalProperties, *kind.MinProperties, *kind.MaxProperties,
		*kind.MinItems, *kind.MaxItems, *kind.AdditionalItems, *kind.Dependency, *kind.DependentRequired,
		*kind.PropertyNames, *kind.FalseSchema:
		return true
	}
	return false
}

// refOK reports whether some value reference r may take satisfies the
// schema that failed at r's place (e.SchemaURL). $x.status takes one of
// the three statuses; $x.output is null or any text, so a failure that some
// other text would pass (a pattern, a length, a format) does not count.
//
// The answer depends only on the schema at that place and on whether r is
// a status (the value standing for r is always the same), so it is kept:
// a plan's many references into one field cost one answer.
func (v *validation) refOK(e *jsonschema.ValidationError, r *ast.Ref) bool {
	key := refKey{e.SchemaURL, r.Field == ast.RefStatus}
	v.s.mu.Lock()
	ok, known := v.s.refOKs[key]
	v.s.mu.Unlock()
	if known {
		return ok
	}
	ok = v.tryCandidates(e, r)
	v.s.mu.Lock()
	v.s.refOKs[key] = ok
	v.s.mu.Unlock()
	return ok
}

// refKey is what refOK's answer depends on.
type refKey struct {
	url    string
	status bool
}

// tryCandidates is refOK's answer, worked out.
func (v *validation) tryCandidates(e *jsonschema.ValidationError, r *ast.Ref) bool {
	sch := v.s.sub(e.SchemaURL)
	if sch == nil {
		return true // cannot tell: the tool decides when it runs
	}
	for _, c := range candidates(r, e.ErrorKind) {
		err := sch.Validate(c)
		if err == nil {
			v.s.hint(e.InstanceLocation, r, c)
			return true
		}
		var ve *jsonschema.ValidationError
		if _, text := c.(string); text && r.Field != ast.RefStatus && errors.As(err, &ve) && textOnly(ve) {
			return true
		}
	}
	return false
}

// candidates are the values reference r is tried with: the three statuses
// for $x.status; for $x.output null, some text, and each string the
// failing keyword names (an enum's, a const's), any of which the output
// may be.
func candidates(r *ast.Ref, k jsonschema.ErrorKind) []any {
	if r.Field == ast.RefStatus {
		return []any{"success", "failed", "skipped"}
	}
	out := []any{nil, outputText}
	switch k := k.(type) {
	case *kind.Enum:
		for _, w := range k.Want {
			if s, ok := w.(string); ok {
				out = append(out, s)
			}
		}
	case *kind.Const:
		if s, ok := k.Want.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// textOnly reports whether e fails a string only for what some other
// string would pass.
func textOnly(e *jsonschema.ValidationError) bool {
	switch k := e.ErrorKind.(type) {
	case *kind.AnyOf:
		return slices.ContainsFunc(e.Causes, textOnly)
	case *kind.OneOf:
		return k.Subschemas == nil && slices.ContainsFunc(e.Causes, textOnly)
	case *kind.MinLength, *kind.MaxLength, *kind.Pattern, *kind.Format,
		*kind.ContentEncoding, *kind.ContentMediaType, *kind.ContentSchema:
		return true
	}
	if len(e.Causes) == 0 {
		return false
	}
	for _, c := range e.Causes {
		if !textOnly(c) {
			return false
		}
	}
	return true
}

// hint keeps c, a value reference r may take that the schema at instance
// location loc accepted, for instanceHinted.
func (s *InputSchema) hint(loc []string, r *ast.Ref, c any) {
	k := hintKey{pointer(loc), r.Field == ast.RefStatus}
	s.mu.Lock()
	if _, ok := s.hints[k]; !ok && len(s.hints) < maxHints {
		s.hints[k] = c
	}
	s.mu.Unlock()
}

// maxHints bounds the hints an InputSchema keeps.
const maxHints = 1024

// instanceHinted is instance(root) with each whole-string reference
// replaced by the value a reference at its place last passed with (hint),
// where there is one, and ok set when some reference got such a value.
//
// It is a shortcut, never a judgment: a reference stands for every value
// it may take (S8), and a hint is one of them, so an instance with hints
// that the schema accepts shows that the input is valid without the
// failure analysis that the placeholder values would set off. An instance
// with hints that fails says nothing; the check starts again from
// instance(root).
func (s *InputSchema) instanceHinted(root *ast.Value) (inst any, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.hints) == 0 {
		return nil, false
	}
	var path []string
	var walk func(v *ast.Value) any
	walk = func(v *ast.Value) any {
		switch v.Kind {
		case ast.String:
			if v.Ref() != nil {
				if h, found := s.hints[hintKey{pointer(path), v.Ref().Field == ast.RefStatus}]; found {
					ok = true
					return h
				}
			}
		case ast.Array:
			out := make([]any, len(v.Elems()))
			for i, e := range v.Elems() {
				path = append(path, strconv.Itoa(i))
				out[i] = walk(e)
				path = path[:len(path)-1]
			}
			return out
		case ast.Object:
			out := make(map[string]any, len(v.Members()))
			for _, m := range v.Members() {
				path = append(path, m.Key)
				out[m.Key] = walk(m.Value)
				path = path[:len(path)-1]
			}
			return out
		}
		return instance(v)
	}
	inst = walk(root)
	return inst, ok
}
