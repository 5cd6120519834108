package check

import "github.com/planc/planc/ast"

var statuses = [...]string{"success", "failed", "skipped"}

// ruleStatusLiteral warns when .status is compared with a literal that is
// not one of the three statuses (S11): the comparison can never be equal.
var ruleStatusLiteral = Rule{
	Code:     "status-literal",
	Severity: ast.Warning,
	Doc:      "a .status is compared with something other than success, failed, skipped (S11)",
	Example:  `{"id": "n", "tool": "notes", "if": "$t.status == 'succeeded'"}`,
	on:       onCond,
	step: func(p *Pass, r *Rule, _ int, s *ast.Step) {
		for _, c := range p.stepCompares(s) {
			ref, lit := refAndLiteral(c)
			if ref == nil || ref.Field != ast.RefStatus || isOneOf(lit.Value, statuses[:]) {
				continue
			}
			sug := ast.Suggest(lit.Value, statuses[:])
			fix := ""
			if sug != "" {
				fix = "; did you mean '" + sug + "'?"
			} else {
				fix = "; compare with 'success', 'failed' or 'skipped'"
			}
			p.report(r, s, lit.Span, sug, "%s is never %q: a status is success, failed or skipped%s", ref.String(), lit.Value, fix)
		}
	},
}
