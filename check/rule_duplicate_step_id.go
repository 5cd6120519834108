package check

import "github.com/planc/planc/ast"

// ruleDuplicateStepID refuses two steps with the same id (S4: exact byte
// comparison). Every step after the first with that id is reported.
var ruleDuplicateStepID = Rule{
	Code:     "duplicate-step-id",
	Severity: ast.Error,
	Doc:      "two steps have the same id",
	Example:  `[{"id": "a", "tool": "notes"}, {"id": "a", "shell": "go vet"}]`,
	step: func(p *Pass, r *Rule, i int, s *ast.Step) {
		if f := p.byID.first[i]; f >= 0 && f != int32(i) {
			first := p.Plan.Steps[f]
			p.report(r, s, s.IDField().Span, "", "step id %q is already used by step %d at %s; step ids must be unique, rename one", s.ID, first.Index+1, p.Plan.Lines.Pos(first.IDField().Span.Start))
		}
	},
}
