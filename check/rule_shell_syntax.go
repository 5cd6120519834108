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
	step: func(p *Pass, r *Rule, _ int, s *ast.Step) {
		if s.Kind != ast.KindShell {
			return
		}
		sp := s.TargetField.Value.Span
		if strings.TrimSpace(s.Target) == "" {
			p.Bad[s.Index] = true
			p.report(r, s, sp, "", "%s has an empty command line; write the command, e.g. \"go test ./...\"", stepName(s))
			return
		}
		first, ok, err := firstWord(s.Target)
		if err != nil {
			p.Bad[s.Index] = true
			p.report(r, s, sp, "", "the command line of %s cannot be split into words: %s; close every quote (the runtime splits it, not a shell)", stepName(s), err)
			return
		}
		if !ok {
			p.Bad[s.Index] = true
			p.report(r, s, sp, "", "%s has a command line with no words; write the command, e.g. \"go test ./...\"", stepName(s))
			return
		}
		p.argv0[s.Index] = first
	},
}

// firstWord returns the first word of a command line as shlex splits it,
// ok false when it has none, or shlex's error. A plain line (ASCII, without the
// quotes, backslash or # that shlex treats specially) is split on shlex's
// white space directly: shlex.Split allocates a 4 KiB reader per call, the
// largest allocation of checking a big plan.
func firstWord(line string) (word string, ok bool, err error) {
	plain := true
	for i := 0; i < len(line) && plain; i++ {
		switch c := line[i]; {
		case c >= 0x80, c == '"', c == '\'', c == '\\', c == '#':
			plain = false
		}
	}
	if !plain {
		words, err := shlex.Split(line)
		if err != nil || len(words) == 0 {
			return "", false, err
		}
		return words[0], true, nil
	}
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
	i := 0
	for i < len(line) && isSpace(line[i]) {
		i++
	}
	j := i
	for j < len(line) && !isSpace(line[j]) {
		j++
	}
	if i == j {
		return "", false, nil
	}
	return line[i:j], true, nil
}
