package check

import "github.com/planc/planc/ast"

// ruleReferenceInKey warns for an object key inside input that looks like a
// reference: keys are never substituted (S7).
var ruleReferenceInKey = Rule{
	Code:     "reference-in-key",
	Severity: ast.Warning,
	Doc:      "an object key in input looks like a reference; keys are never substituted (S7)",
	Example:  `{"id": "n", "tool": "notes", "input": {"$t.output": "x"}}`,
	on:       onInput,
	step: func(p *Pass, r *Rule, _ int, s *ast.Step) {
		if s.Input == nil {
			return
		}
		ast.Walk(s.Input, func(v *ast.Value) bool {
			for _, m := range v.Members() {
				if containsRefShape(m.Key) {
					p.report(r, s, m.KeySpan(), "", "key %q looks like a reference, but keys are never substituted; put the reference in a value", m.Key)
				}
			}
			return true
		})
	},
}
