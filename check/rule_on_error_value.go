package check

import (
	"github.com/planc/planc/ast"
	"github.com/planc/planc/parser"
)

var onErrorWords = [...]string{"fail", "skip", "continue"}

// ruleOnErrorValue refuses an on_error other than fail, skip or continue
// (docs/plans.md, "What is refused before anything runs").
var ruleOnErrorValue = Rule{
	Code:     "on-error-value",
	Severity: ast.Error,
	Doc:      "on_error is not one of fail, skip, continue",
	Example:  `{"id": "a", "tool": "notes", "on_error": "ignore"}`,
	step: func(p *Pass, r *Rule, _ int, s *ast.Step) {
		m := s.OnErrorField()
		if m == nil || m.Kind != ast.String {
			return
		}
		if text := parser.FieldText(p.Plan, m); !isOneOf(text, onErrorWords[:]) {
			sug := ast.Suggest(text, onErrorWords[:])
			extra := didYouMean(sug)
			if sug == "" {
				extra = `; write "fail", "skip" or "continue"`
			}
			p.Bad[s.Index] = true
			p.report(r, s, m.Span, sug, "on_error %q is not one of \"fail\", \"skip\", \"continue\"%s", text, extra)
		}
	},
}
