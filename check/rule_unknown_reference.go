package check

import (
	"fmt"

	"github.com/planc/planc/ast"
)

// ruleUnknownReference refuses a $<id> reference, in input or in if, naming
// a step the plan does not declare (docs/plans.md, "What is refused before
// anything runs"; S6).
var ruleUnknownReference = Rule{
	Code:     "unknown-reference",
	Severity: ast.Error,
	Doc:      "a $<id> reference names a step the plan does not declare (S6)",
	Example:  `{"id": "n", "tool": "notes", "input": {"body": "$tset.output"}}`,
	on:       onRefs,
	step: func(p *Pass, r *Rule, i int, s *ast.Step) {
		for k, ref := range s.Refs {
			if p.refsOf(i)[k] >= 0 {
				continue
			}
			p.unknownStep(r, s, ref.StepID, ref.IDSpan(), fmt.Sprintf("reference %s names step %q, which the plan does not declare", ref, ref.StepID))
		}
	},
}
