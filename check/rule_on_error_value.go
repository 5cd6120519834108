package check

import "github.com/planc/planc/ast"

var onErrorWords = [...]string{"fail", "skip", "continue"}

// ruleOnErrorValue refuses an on_error other than fail, skip or continue
// (docs/plans.md, "What is refused before anything runs").
var ruleOnErrorValue = Rule{
	Code:     "on-error-value",
	Severity: ast.Error,
	Doc:      "on_error is not one of fail, skip, continue",
	Example:  `{"id": "a", "tool": "notes", "on_error": "ignore"}`,
	step: func(p *Pass, r *Rule, _ int, s *ast.Step) {
		m := s.OnErrorField
		if m == nil || m.Value.Kind != ast.String {
			return
		}
		if _, ok := ast.ParseOnError(m.Value.Str); !ok {
			sug := ast.Suggest(m.Value.Str, onErrorWords[:])
			extra := didYouMean(sug)
			if sug == "" {
				extra = `; write "fail", "skip" or "continue"`
			}
			p.Bad[s.Index] = true
			p.report(r, s, m.Value.Span, sug, "on_error %q is not one of \"fail\", \"skip\", \"continue\"%s", m.Value.Str, extra)
		}
	},
}
