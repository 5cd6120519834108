package check

import "github.com/planc/planc/ast"

// ruleReferenceInShell warns for a shell command line holding a
// reference-shaped word: command lines are never substituted (S7).
var ruleReferenceInShell = Rule{
	Code:     "reference-in-shell",
	Severity: ast.Warning,
	Doc:      "a shell command line holds a reference-shaped word; command lines are never substituted (S7)",
	Example:  `{"id": "e", "shell": "echo $build.output", "depends_on": ["build"]}`,
	on:       onShell,
	step: func(p *Pass, r *Rule, _ int, s *ast.Step) {
		if s.Kind == ast.KindShell && containsRefShape(s.Target) {
			p.report(r, s, s.TargetField().Span, "", "the command line of %s holds a reference, but command lines are never substituted; pass the value through a tool step's input instead", stepName(s))
		}
	},
}
