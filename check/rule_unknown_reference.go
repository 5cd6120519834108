package check

import "github.com/planc/planc/ast"

// ruleUnknownReference refuses a $<id> reference, in input or in if, naming
// a step the plan does not declare (the seed's list; S6).
var ruleUnknownReference = Rule{
	Code:     "unknown-reference",
	Severity: ast.Error,
	Doc:      "a $<id> reference names a step the plan does not declare (S6)",
	Example:  `{"id": "n", "tool": "notes", "input": {"body": "$tset.output"}}`,
	step: func(p *Pass, r *Rule, i int, s *ast.Step) {
		for k, ref := range s.Refs {
			if p.refsOf(i)[k] >= 0 {
				continue
			}
			sug := ast.Suggest(ref.StepID, p.stepIDs())
			fix := didYouMean(sug)
			if sug == "" {
				fix = "; name a step declared in this plan"
			}
			p.report(r, s, ref.IDSpan, sug, "reference %s names step %q, which the plan does not declare%s", ref, ref.StepID, fix)
		}
	},
}
