package check

import "github.com/planc/planc/ast"

// SubmitPlan is the runtime-provided tool that takes a plan; a plan cannot
// call it (docs/plans.md, "What is refused before anything runs"), even when
// the inventory lists it (S16).
const SubmitPlan = "submit-plan"

// ruleSubmitPlanTool refuses a tool step naming submit-plan.
var ruleSubmitPlanTool = Rule{
	Code:     "submit-plan-tool",
	Severity: ast.Error,
	Doc:      "a tool step names submit-plan: a plan cannot submit a plan (S16)",
	Example:  `{"id": "p", "tool": "submit-plan", "input": {}}`,
	on:       onTool,
	step: func(p *Pass, r *Rule, _ int, s *ast.Step) {
		if s.Kind == ast.KindTool && s.Target == SubmitPlan {
			p.report(r, s, s.TargetField().Span, "", "%s calls %q: a plan cannot submit a plan; put the inner plan's steps into this plan", stepName(s), SubmitPlan)
		}
	},
}
