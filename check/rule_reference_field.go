package check

import "github.com/planc/planc/ast"

var refFields = [...]string{"output", "status"}

// ruleReferenceField refuses a reference field other than output or status
// (docs/plans.md, "What is refused before anything runs"; S6).
var ruleReferenceField = Rule{
	Code:     "reference-field",
	Severity: ast.Error,
	Doc:      "a reference reads a field other than output or status (S6)",
	Example:  `{"id": "n", "tool": "notes", "input": {"body": "$t.stdout"}}`,
	on:       onRefs,
	step: func(p *Pass, r *Rule, _ int, s *ast.Step) {
		for _, ref := range s.Refs {
			if ref.Field != ast.RefOther {
				continue
			}
			sug := ast.Suggest(ref.FieldName, refFields[:])
			fix := didYouMean(sug)
			if sug == "" {
				fix = "; a reference reads .output or .status"
			}
			p.report(r, s, ref.FieldSpan(), sug, "reference %s reads field %q, which steps do not have%s", ref, ref.FieldName, fix)
		}
	},
}
