package check

import "github.com/planc/planc/ast"

// ruleReferenceLikeText warns for a string in input that contains something
// shaped like a reference without being one as a whole (S6): "see
// $a.output" is plain text and is never substituted.
var ruleReferenceLikeText = Rule{
	Code:     "reference-like-text",
	Severity: ast.Warning,
	Doc:      "a string contains a reference-shaped word but is not exactly a reference, so it is not substituted (S6)",
	Example:  `{"id": "n", "tool": "notes", "input": {"body": "log: $t.output"}}`,
	step: func(p *Pass, r *Rule, _ int, s *ast.Step) {
		if s.InputField == nil {
			return
		}
		ast.Walk(s.InputField.Value, func(v *ast.Value) bool {
			if v.Kind == ast.String && v.Ref == nil && containsRefShape(v.Str) && !unreferenceable(v.Str) {
				p.report(r, s, v.Span, "", "%q contains a reference but is not one: only a string that is exactly $<id>.output or $<id>.status is substituted; make the reference the whole string", v.Str)
			}
			return true
		})
	},
}

// unreferenceable reports whether s reads, as a whole, as a reference to
// a step id no reference can name: unreferenceable-id says so instead.
func unreferenceable(s string) bool {
	n, _, _, ok := ast.UnreferenceableRef(s)
	return ok && n == len(s)
}
