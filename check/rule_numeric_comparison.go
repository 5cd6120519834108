package check

import "github.com/planc/planc/ast"

// ruleNumericComparison warns for > or < between a reference and a literal
// that reads as a number: comparison is always by text (S11), so
// '10' < '9' is true.
var ruleNumericComparison = Rule{
	Code:     "numeric-comparison",
	Severity: ast.Warning,
	Doc:      "> or < against a number-like literal compares text, not numbers (S11)",
	Example:  `{"id": "n", "tool": "notes", "if": "$count.output > '10'"}`,
	on:       onCond,
	step: func(p *Pass, r *Rule, _ int, s *ast.Step) {
		for _, c := range p.stepCompares(s) {
			if c.Op != ast.OpGt && c.Op != ast.OpLt {
				continue
			}
			ref, lit := refAndLiteral(c)
			if ref == nil || ref.Field == ast.RefStatus {
				continue // status-ordering covers .status
			}
			if !numberLike(lit.Value) {
				continue
			}
			p.report(r, s, c.CondSpan(), "", "%s compares text, not numbers: %q %s %q is decided byte by byte ('10' < '9' is true); compare with == or != instead, or produce a fixed-width value", c.Op, ref.String(), c.Op, lit.Value)
		}
	},
}
