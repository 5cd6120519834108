package check

import (
	"strconv"
	"strings"

	"github.com/planc/planc/ast"
)

// ruleNumericComparison warns for > or < between a reference and a literal
// that reads as a number: comparison is always by text (S11), so
// '10' < '9' is true.
var ruleNumericComparison = Rule{
	Code:     "numeric-comparison",
	Severity: ast.Warning,
	Doc:      "> or < against a number-like literal compares text, not numbers (S11)",
	Example:  `{"id": "n", "tool": "notes", "if": "$count.output > '10'"}`,
	run: func(p *Pass, r *Rule) {
		p.compares(func(s *ast.Step, c *ast.Compare) {
			if c.Op != ast.OpGt && c.Op != ast.OpLt {
				return
			}
			ref, lit := refAndLiteral(c)
			if ref == nil || ref.Field == ast.RefStatus {
				return // status-ordering covers .status
			}
			if _, err := strconv.ParseFloat(strings.TrimSpace(lit.Value), 64); err != nil {
				return
			}
			p.report(r, s, c.Span, "", "%s compares text, not numbers: %q %s %q is decided byte by byte ('10' < '9' is true); compare with == or != instead, or produce a fixed-width value", c.Op, ref.String(), c.Op, lit.Value)
		})
	},
}
