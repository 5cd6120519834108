package check

import (
	"slices"

	"github.com/planc/planc/ast"
)

// ruleBinaryNotFound warns at a shell step whose binary the capsule
// allows but which cannot be found now (on PATH, or as the file a word
// with a slash names): the step would fail when it runs. It needs
// capabilities with Found set.
var ruleBinaryNotFound = Rule{
	Code:      "binary-not-found",
	Severity:  ast.Warning,
	Doc:       "a shell step's binary is allowed but not found on PATH at check time, so the step would fail",
	Example:   `{"id": "t", "shell": "cargo test"}`,
	NeedsCaps: true,
	on:        onShell,
	step: func(p *Pass, r *Rule, _ int, s *ast.Step) {
		if s.Kind != ast.KindShell || p.Bad[s.Index] || p.Caps.Found == nil {
			return
		}
		bin := argv0(s)
		if !slices.Contains(p.Caps.ShellAllow, bin) || p.Caps.Found(bin) {
			return
		}
		p.report(r, s, s.TargetField().Span, "", "%q is allowed but not found on PATH, so the step would fail with \"executable file not found\"; install it, put its directory on PATH, or name it by its path in capabilities.shell.allow", bin)
	},
}
