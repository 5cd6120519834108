package check

import "github.com/planc/planc/ast"

// ruleShellInputIgnored warns for input on a shell step, which a shell
// step ignores (docs/plans.md, "Shell steps"; S14).
var ruleShellInputIgnored = Rule{
	Code:     "shell-input-ignored",
	Severity: ast.Warning,
	Doc:      "a shell step has input, which a shell step ignores (S14)",
	Example:  `{"id": "t", "shell": "go test ./...", "input": {"pkg": "./..."}}`,
	on:       onShell | onInput,
	step: func(p *Pass, r *Rule, _ int, s *ast.Step) {
		if s.Kind == ast.KindShell && s.Input != nil {
			p.report(r, s, s.InputField().KeySpan(), "", "%s is a shell step, which ignores its input; put the arguments in the command line or remove the input", stepName(s))
		}
	},
}
