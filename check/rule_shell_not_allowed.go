package check

import (
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/planc/planc/ast"
)

// ruleShellNotAllowed refuses a shell step whose first word is not an entry
// of capabilities.shell.allow, compared exactly (S14: "bash" does not allow
// "/bin/bash", nor the reverse). Its fix names the manifest and the entry
// to add. It needs capabilities.
var ruleShellNotAllowed = Rule{
	Code:      "shell-not-allowed",
	Severity:  ast.Error,
	Doc:       "a shell step's binary is not in capabilities.shell.allow (S14)",
	Example:   `{"id": "t", "shell": "cargo test --quiet"}`,
	NeedsCaps: true,
	on:        onShell,
	step: func(p *Pass, r *Rule, _ int, s *ast.Step) {
		if s.Kind != ast.KindShell || p.Bad[s.Index] {
			return
		}
		bin := argv0(s) // split once, by shell-syntax
		if slices.Contains(p.Caps.ShellAllow, bin) {
			return
		}
		sug := ""
		for _, a := range p.Caps.ShellAllow {
			if path.Base(a) == path.Base(bin) {
				sug = a
				break
			}
		}
		if sug == "" {
			sug = ast.Suggest(bin, p.Caps.ShellAllow)
		}
		fix := p.Caps.grant(strconv.Quote(bin), "capabilities.shell.allow")
		switch {
		case bin == "":
			// No allow entry may be empty: the fix is in the line.
			fix = "the line's first word is empty (\"\" or ''); begin it with the program to run"
		case strings.ContainsFunc(bin, unicode.IsSpace):
			// Nor hold white space: quotes or a backslash made one word of
			// what the program's name and its arguments would be.
			fix = "its quotes or backslashes make one word of it, and no allow entry holds white space; write the program's name as a word of its own"
		}
		p.report(r, s, s.TargetField().Span, sug, "%q is not in capabilities.shell.allow%s%s; %s",
			bin, p.Caps.of(), meant(sug), fix)
	},
}
