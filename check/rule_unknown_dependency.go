package check

import (
	"fmt"

	"github.com/planc/planc/ast"
)

// ruleUnknownDependency refuses a depends_on entry naming a step the plan
// does not declare (docs/plans.md, "What is refused before anything runs").
var ruleUnknownDependency = Rule{
	Code:     "unknown-dependency",
	Severity: ast.Error,
	Doc:      "a depends_on entry names a step the plan does not declare",
	Example:  `{"id": "b", "tool": "notes", "depends_on": ["biuld"]}`,
	on:       onDeps,
	step: func(p *Pass, r *Rule, i int, s *ast.Step) {
		for k, d := range s.DependsOn {
			if p.depsOf(i)[k] >= 0 {
				continue
			}
			p.unknownStep(r, s, d.ID, d.Span, fmt.Sprintf("%s depends on %q, which the plan does not declare", stepName(s), d.ID))
		}
	},
}
