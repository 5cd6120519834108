package check

import "github.com/planc/planc/ast"

// ruleStatusOrdering warns for > or < on a .status (S11): statuses have no
// meaningful order.
var ruleStatusOrdering = Rule{
	Code:     "status-ordering",
	Severity: ast.Warning,
	Doc:      "> or < applied to a .status, which has no meaningful order (S11)",
	Example:  `{"id": "n", "tool": "notes", "if": "$t.status > 'failed'"}`,
	on:       onCond,
	step: func(p *Pass, r *Rule, _ int, s *ast.Step) {
		for _, c := range p.stepCompares(s) {
			if c.Op != ast.OpGt && c.Op != ast.OpLt {
				continue
			}
			for _, o := range [...]ast.Operand{c.X, c.Y} {
				if ref, ok := o.(*ast.Ref); ok && ref.Field == ast.RefStatus {
					p.report(r, s, c.OpSpan, "", "%s on %s compares status words as text; use == or != with 'success', 'failed' or 'skipped'", c.Op, ref.String())
					break
				}
			}
		}
	},
}
