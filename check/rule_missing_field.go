package check

import "github.com/planc/planc/ast"

// ruleMissingField refuses a plan without "id" or "steps" and a step without
// "id" (docs/plans.md, "The plan" and "Steps"; P3).
var ruleMissingField = Rule{
	Code:     "missing-field",
	Severity: ast.Error,
	Doc:      `a required field is absent: the plan's "id" or "steps", a step's "id"`,
	Example:  `{"tool": "notes", "input": {"body": "hi"}}`,
	plan: func(p *Pass, r *Rule) {
		if p.Plan.IDField == nil {
			p.report(r, nil, p.Plan.Object.OpenSpan(), "", "the plan has no %q; add \"id\": \"<plan name>\"", "id")
		}
		if p.Plan.StepsField == nil {
			p.report(r, nil, p.Plan.Object.OpenSpan(), "", "the plan has no %q; add \"steps\": [] with the steps to run", "steps")
		}
	},
	step: func(p *Pass, r *Rule, _ int, s *ast.Step) {
		if s.IDField() == nil {
			p.Bad[s.Index] = true
			p.report(r, s, s.OpenSpan(), "", "%s has no %q; add \"id\": \"<step name>\", unique in the plan", stepName(s), "id")
		}
	},
}
