package check

import "github.com/planc/planc/ast"

// ruleDuplicateDependency warns when depends_on names the same step twice:
// harmless, but almost always a copy-and-paste slip.
var ruleDuplicateDependency = Rule{
	Code:     "duplicate-dependency",
	Severity: ast.Warning,
	Doc:      "depends_on names the same step twice",
	Example:  `{"id": "b", "tool": "notes", "depends_on": ["a", "a"]}`,
	on:       onDeps,
	step: func(p *Pass, r *Rule, _ int, s *ast.Step) {
		deps := s.DependsOn
		if len(deps) <= 16 {
			// Few entries (the usual case): compare each with those before
			// it, without a map.
			for k, d := range deps {
				for _, e := range deps[:k] {
					if e.ID == d.ID {
						p.report(r, s, d.Span, "", "%s depends on %q twice; remove the second entry", stepName(s), d.ID)
						break
					}
				}
			}
			return
		}
		seen := make(map[string]bool, len(deps))
		for _, d := range deps {
			if seen[d.ID] {
				p.report(r, s, d.Span, "", "%s depends on %q twice; remove the second entry", stepName(s), d.ID)
			}
			seen[d.ID] = true
		}
	},
}
