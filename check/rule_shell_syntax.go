package check

import (
	"strings"

	"github.com/planc/planc/ast"
)

// ruleShellSyntax refuses a shell command line that cannot be split into
// words (S14): unclosed quotes, a trailing backslash, or an empty line.
var ruleShellSyntax = Rule{
	Code:     "shell-syntax",
	Severity: ast.Error,
	Doc:      "a shell command line is empty or cannot be split into words (S14)",
	Example:  `{"id": "t", "shell": "bash -c 'go test"}`,
	on:       onShell,
	step: func(p *Pass, r *Rule, _ int, s *ast.Step) {
		if s.Kind != ast.KindShell {
			return
		}
		sp := s.TargetField().Span
		if strings.TrimSpace(s.Target) == "" {
			p.Bad[s.Index] = true
			p.report(r, s, sp, "", "%s has an empty command line; write the command, e.g. \"go test ./...\"", stepName(s))
			return
		}
		if s.ArgvErr() != nil {
			p.Bad[s.Index] = true
			p.report(r, s, sp, "", "the command line of %s cannot be split into words: %s; close every quote (the runtime splits it, not a shell)", stepName(s), s.ArgvErr())
			return
		}
		if len(s.Argv) == 0 {
			p.Bad[s.Index] = true
			p.report(r, s, sp, "", "%s has a command line with no words; write the command, e.g. \"go test ./...\"", stepName(s))
		}
	},
}

// argv0 is a shell step's first word, as the parser split its command line
// (Step.Argv), or "" when it has none (shell-syntax reports why).
func argv0(s *ast.Step) string {
	if s.Kind != ast.KindShell || len(s.Argv) == 0 {
		return ""
	}
	return s.Argv[0]
}
