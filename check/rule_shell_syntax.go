package check

import (
	"strings"

	"github.com/google/shlex"
	"github.com/planc/planc/ast"
)

// ruleShellSyntax refuses a shell command line that cannot be split into
// words (S14): unclosed quotes, a trailing backslash, or an empty line.
var ruleShellSyntax = Rule{
	Code:     "shell-syntax",
	Severity: ast.Error,
	Doc:      "a shell command line is empty or cannot be split into words (S14)",
	Example:  `{"id": "t", "shell": "bash -c 'go test"}`,
	run: func(p *Pass, r *Rule) {
		for _, s := range p.Plan.Steps {
			if s.Kind != ast.KindShell {
				continue
			}
			sp := s.TargetField.Value.Span
			if strings.TrimSpace(s.Target) == "" {
				p.Bad[s.Index] = true
				p.report(r, s, sp, "", "%s has an empty command line; write the command, e.g. \"go test ./...\"", stepName(s))
				continue
			}
			words, err := shlex.Split(s.Target)
			if err != nil {
				p.Bad[s.Index] = true
				p.report(r, s, sp, "", "the command line of %s cannot be split into words: %s; close every quote (the runtime splits it, not a shell)", stepName(s), err)
				continue
			}
			if len(words) == 0 {
				p.Bad[s.Index] = true
				p.report(r, s, sp, "", "%s has a command line with no words; write the command, e.g. \"go test ./...\"", stepName(s))
				continue
			}
			p.argv0[s.Index] = words[0]
		}
	},
}
