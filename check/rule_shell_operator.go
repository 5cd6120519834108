package check

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/internal/termtext"
)

// ruleShellOperator warns for a shell step whose command line holds an
// unquoted shell operator — a pipe, a list (&&, ||, ;), a background &, a
// redirection. No shell reads the line (S14): the operator reaches the
// program as a word of its own, so `ls | wc -l` runs ls on the files "|",
// "wc" and "-l". Whether a character is quoted is a shell's question, so
// the line is parsed with mvdan.cc/sh, the parser the hooks use.
var ruleShellOperator = Rule{
	Code:     "shell-operator",
	Severity: ast.Warning,
	Doc:      "a shell command line has an unquoted pipe, list, & or redirection, which no shell reads (S14)",
	Example:  `{"id": "n", "shell": "ls | wc -l"}`,
	on:       onShell,
	step: func(p *Pass, r *Rule, _ int, s *ast.Step) {
		if s.Kind != ast.KindShell || p.Bad[s.Index] || !strings.ContainsAny(s.Target, "|&;<>") {
			return
		}
		op := shellOperator(s.Target)
		if op == "" {
			return
		}
		fix := "to have a shell read it, hand the line to one, as in \"bash -c '...'\" with the line quoted for it, and allow that shell"
		// The line goes into the fix as it is, to copy: not one with a
		// character a terminal would act on (an escape, a bidi control).
		if !strings.Contains(s.Target, "'") && !strings.ContainsFunc(s.Target, termtext.Unsafe) {
			fix = fmt.Sprintf("to have a shell read it, write \"sh -c '%s'\" and allow sh", strings.TrimSpace(s.Target))
		}
		p.report(r, s, s.TargetField().Span, "",
			"the command line of %s has %q, which no shell reads here: planc runs one program and hands it %q as a word (S14); %s",
			stepName(s), op, op, fix)
	},
}

// shellOperator returns the first operator a shell would act on in line:
// "|", "&&", "||", ";", "&" or a redirection's, as in ">"; "" when there
// is none or line is not a shell's to parse.
func shellOperator(line string) string {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	if err != nil || len(f.Stmts) == 0 {
		return ""
	}
	if len(f.Stmts) > 1 {
		return ";"
	}
	st := f.Stmts[0]
	switch {
	case st.Background:
		return "&"
	case st.Semicolon.IsValid():
		return ";"
	case len(st.Redirs) > 0:
		return st.Redirs[0].Op.String()
	}
	if b, ok := st.Cmd.(*syntax.BinaryCmd); ok {
		return b.Op.String()
	}
	return ""
}
