package check

import "github.com/planc/planc/ast"

// ruleDuplicateDependency warns when depends_on names the same step twice:
// harmless, but almost always a copy-and-paste slip.
var ruleDuplicateDependency = Rule{
	Code:     "duplicate-dependency",
	Severity: ast.Warning,
	Doc:      "depends_on names the same step twice",
	Example:  `{"id": "b", "tool": "notes", "depends_on": ["a", "a"]}`,
	run: func(p *Pass, r *Rule) {
		for _, s := range p.Plan.Steps {
			seen := make(map[string]bool, len(s.DependsOn))
			for _, d := range s.DependsOn {
				if seen[d.ID] {
					p.report(r, s, d.Span, "", "%s depends on %q twice; remove the second entry", stepName(s), d.ID)
				}
				seen[d.ID] = true
			}
		}
	},
}
