package protect

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// The walk over a parsed script follows the directories commands may run
// in: a literal `cd DIR` or `pushd DIR` moves the commands after it (in
// its list, and after && or ||) to DIR, not those of an enclosing
// subshell, pipeline or substitution; where a body may run or not (if,
// while, for, case, ||) the directories of both ways are kept. A cd whose
// directory is not literal leaves the directories as they were.

// stmts reads a list in order and returns the directories after it.
func (a *analyzer) stmts(list []*syntax.Stmt, cwds []string, depth int) []string {
	for _, st := range list {
		if a.found != nil {
			break
		}
		cwds = a.stmt(st, cwds, depth)
	}
	return cwds
}

// stmt reads one statement: its redirections, opened before its command
// runs, then the command.
func (a *analyzer) stmt(st *syntax.Stmt, cwds []string, depth int) []string {
	if st == nil || a.found != nil {
		return cwds
	}
	if a.steps > maxSteps {
		a.truncated = true
		return cwds
	}
	a.steps++
	for _, r := range st.Redirs {
		a.redirect(r, cwds, depth)
	}
	prev := a.hook.stdin
	a.hook.stdin = a.stdinOf(st, prev)
	out := a.cmd(st.Cmd, cwds, depth)
	if !keepsStdin(st) {
		a.hook.stdin = prev
	}
	if st.Background || st.Coprocess {
		return cwds
	}
	return out
}

// cmd reads one command and returns the directories after it.
func (a *analyzer) cmd(c syntax.Command, cwds []string, depth int) []string {
	switch c := c.(type) {
	case nil:
		return cwds
	case *syntax.CallExpr:
		a.substs(c, cwds, depth)
		a.procFiles(c)
		for _, as := range c.Assigns {
			a.assignNode(as, cwds, depth)
		}
		words := callWords(c)
		a.command(words, cwds, depth)
		return cd(words, cwds)
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.AndStmt:
			return a.stmt(c.Y, a.stmt(c.X, cwds, depth), depth)
		case syntax.OrStmt:
			x := a.stmt(c.X, cwds, depth)
			return union(x, a.stmt(c.Y, union(cwds, x), depth))
		}
		a.stmt(c.X, cwds, depth) // a pipeline: each side in a subshell
		in := a.hook.stdin
		a.hook.stdin = input{set: true, pipe: c.X, pipeIn: &in}
		a.stmt(c.Y, cwds, depth)
		a.hook.stdin = in
		return cwds
	case *syntax.Subshell:
		a.stmts(c.Stmts, cwds, depth)
		return cwds
	case *syntax.Block:
		return a.stmts(c.Stmts, cwds, depth)
	case *syntax.IfClause:
		cond := a.stmts(c.Cond, cwds, depth)
		then := a.stmts(c.Then, cond, depth)
		if c.Else == nil {
			return union(cond, then)
		}
		return union(then, a.cmd(c.Else, cond, depth))
	case *syntax.WhileClause:
		s := cwds
		for range 2 { // a second time, from where the first left
			cond := a.stmts(c.Cond, s, depth)
			s = union(cond, a.stmts(c.Do, cond, depth))
		}
		return s
	case *syntax.ForClause:
		a.substs(c.Loop, cwds, depth)
		s := cwds
		for range 2 {
			s = union(s, a.stmts(c.Do, s, depth))
		}
		return s
	case *syntax.CaseClause:
		a.substs(c.Word, cwds, depth)
		out := cwds
		for _, item := range c.Items {
			for _, p := range item.Patterns {
				a.substs(p, cwds, depth)
			}
			out = union(out, a.stmts(item.Stmts, cwds, depth))
		}
		return out
	case *syntax.FuncDecl:
		a.stmt(c.Body, cwds, depth) // read where it is declared
		return cwds
	case *syntax.TimeClause:
		return a.stmt(c.Stmt, cwds, depth)
	case *syntax.CoprocClause:
		a.stmt(c.Stmt, cwds, depth)
		return cwds
	case *syntax.DeclClause:
		a.substs(c, cwds, depth)
		for _, as := range c.Args {
			a.assignNode(as, cwds, depth)
		}
		return cwds
	}
	a.substs(c, cwds, depth) // [[ ]], (( )), let, declare and the like
	return cwds
}

// substs reads the command and process substitutions in the words under
// n, each as a subshell.
func (a *analyzer) substs(n syntax.Node, cwds []string, depth int) {
	if n == nil || a.found != nil {
		return
	}
	syntax.Walk(n, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			a.stmts(n.Stmts, cwds, depth)
			return false
		case *syntax.ProcSubst:
			a.stmts(n.Stmts, cwds, depth)
			return false
		}
		return a.found == nil
	})
}

// cd returns the directories after a simple command: those a literal cd
// or pushd moves to (with the old ones kept when the directory does not
// exist now, as cd will then fail), or cwds.
func cd(words []word, cwds []string) []string {
	if len(words) < 2 || words[0].kind != wordExact || words[0].val != "cd" && words[0].val != "pushd" {
		return cwds
	}
	var dir word
	for _, w := range words[1:] {
		if w.kind != wordExact || len(w.val) < 2 || w.val[0] != '-' {
			dir = w
			break
		} // skip -L, -P, -e, -@ and --
	}
	if dir.kind != wordExact || dir.val == "" || dir.val == "-" {
		return cwds
	}
	var out []string
	exists := true
	for _, cwd := range cwdsFor(dir.val, cwds) {
		next := filepath.Join(cwd, dir.val)
		if fi, err := os.Stat(next); err != nil || !fi.IsDir() {
			exists = false
		}
		out = union(out, []string{next})
	}
	if !exists {
		out = union(cwds, out)
	}
	return out
}

// union returns the directories of a and b, a first, without repeats and
// at most maxCwds of them.
func union(a, b []string) []string {
	out := slices.Clip(a)
	for _, d := range b {
		if len(out) < maxCwds && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// The standard input of a command, for a shell that reads its script
// from it: a here-string or here-document, a pipe from echo, printf or cat
// (whose output is then known), a process substitution <(…) given as a
// file. Any other producer's output is not known.

// stdinOf returns the standard input of st's command, which has in when
// st does not redirect it.
func (a *analyzer) stdinOf(st *syntax.Stmt, in input) input {
	for _, r := range st.Redirs {
		if r.N != nil && r.N.Value != "0" {
			continue
		}
		switch r.Op {
		case syntax.WordHdoc:
			w := convWord(r.Word)
			v, ok := w.exactVal()
			in = input{set: true, known: ok, text: v + "\n", what: "the here-string <<< " + printWord(r.Word)}
		case syntax.Hdoc, syntax.DashHdoc:
			v, ok := heredoc(r)
			in = input{set: true, known: ok, text: v, what: "a here-document"}
		case syntax.RdrIn:
			if ps := procSubstIn(r.Word); ps != nil {
				// < <(…): what the commands in it write, as for a
				// shell given <(…) as its file (procFiles).
				in = a.outputs(ps.Stmts, input{}, printWord(r.Word))
			} else {
				in = input{set: true, file: true}
			}
		case syntax.RdrInOut, syntax.DplIn:
			in = input{set: true, what: printWord(r.Word)}
		}
	}
	return in
}

// procSubstIn returns the process substitution <(…) that w is, or nil.
func procSubstIn(w *syntax.Word) *syntax.ProcSubst {
	if w == nil || len(w.Parts) != 1 {
		return nil
	}
	if ps, ok := w.Parts[0].(*syntax.ProcSubst); ok && ps.Op == syntax.CmdIn {
		return ps
	}
	return nil
}

// keepsStdin says whether the standard input st leaves is the shell's
// from then on: after a bare exec (exec < <(…); bash reads it), and
// after a { …; } group without a redirection of its own, whose commands
// ran in this shell; any other command's input is its own.
func keepsStdin(st *syntax.Stmt) bool {
	if st.Background || st.Coprocess {
		return false
	}
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		w := callWords(c)
		return len(c.Assigns) == 0 && len(w) == 1 && w[0].kind == wordExact && w[0].val == "exec"
	case *syntax.Block:
		return len(st.Redirs) == 0
	}
	return false
}

// heredoc returns the body of a here-document as the command reads it:
// as written when its delimiter is quoted, else with \$, \`, \\ and
// \newline unescaped; not known when it expands anything.
func heredoc(r *syntax.Redirect) (string, bool) {
	if r.Hdoc == nil {
		return "", true
	}
	quoted := false
	for _, p := range r.Word.Parts {
		switch p := p.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			quoted = true
		case *syntax.Lit:
			quoted = quoted || strings.Contains(p.Value, `\`)
		}
	}
	var b strings.Builder
	for _, p := range r.Hdoc.Parts {
		l, ok := p.(*syntax.Lit)
		if !ok {
			return "", false
		}
		b.WriteString(l.Value)
	}
	if quoted {
		return b.String(), true
	}
	s := b.String()
	var out strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\\\n", s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		out.WriteByte(s[i])
	}
	return out.String(), true
}

// procFiles records what each process substitution <(…) among ce's words
// gives, for a shell or source given it as its file.
func (a *analyzer) procFiles(ce *syntax.CallExpr) {
	for _, arg := range ce.Args {
		if len(arg.Parts) != 1 {
			continue
		}
		if ps := procSubstIn(arg); ps != nil {
			if a.hook.files == nil {
				a.hook.files = map[string]input{}
			}
			a.hook.files[printWord(arg)] = a.outputs(ps.Stmts, input{}, printWord(arg))
		}
	}
}

// resolve returns in with the output of its pipe worked out.
func (a *analyzer) resolve(in input) input {
	if in.pipe == nil {
		return in
	}
	return a.output(in.pipe, a.resolve(*in.pipeIn))
}

// output returns what st writes to its standard output given in: known
// for echo, printf, cat of its input, true and :, and pipelines and lists
// of them; not known for anything else.
func (a *analyzer) output(st *syntax.Stmt, in input) input {
	what := "the output of " + printNode(st)
	unknown := input{set: true, what: what}
	if st == nil || st.Background || st.Coprocess || st.Negated {
		return unknown
	}
	for _, r := range st.Redirs {
		if r.N == nil || r.N.Value == "0" || r.N.Value == "1" {
			switch r.Op {
			case syntax.WordHdoc, syntax.Hdoc, syntax.DashHdoc:
			default:
				return unknown
			}
		}
	}
	in = a.stdinOf(st, in)
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		if len(c.Assigns) > 0 {
			return unknown
		}
		words := callWords(c)
		var args []string
		for _, w := range words {
			v, ok := w.exactVal()
			if !ok {
				return unknown
			}
			args = append(args, v)
		}
		if len(args) == 0 {
			return unknown
		}
		text, ok := "", false
		switch args[0] {
		case "echo":
			text, ok = echo(args[1:])
		case "printf":
			text, ok = printf(args[1:])
		case "cat":
			if len(args) == 1 || len(args) == 2 && args[1] == "-" {
				in = a.resolve(in)
				if !in.set || in.file || !in.known {
					return unknown
				}
				text, ok = in.text, true
			}
		case "true", ":":
			ok = true
		}
		if !ok || len(text) > maxInput {
			return unknown
		}
		return input{set: true, known: true, text: text, what: what}
	case *syntax.BinaryCmd:
		if c.Op == syntax.Pipe {
			return a.output(c.Y, input{set: true, pipe: c.X, pipeIn: &in})
		}
	case *syntax.Block:
		return a.outputs(c.Stmts, in, what)
	case *syntax.Subshell:
		return a.outputs(c.Stmts, in, what)
	}
	return unknown
}

// outputs is output of a list: the outputs of its statements one after
// the other.
func (a *analyzer) outputs(list []*syntax.Stmt, in input, what string) input {
	var b strings.Builder
	for _, st := range list {
		o := a.output(st, in)
		if !o.known || b.Len()+len(o.text) > maxInput {
			return input{set: true, what: what}
		}
		b.WriteString(o.text)
	}
	return input{set: true, known: true, text: b.String(), what: what}
}

// echo returns what bash's echo writes for args: its options -n, -e and
// -E (clusters of them only), then the words joined by spaces and a
// newline unless -n; with -e the escapes decoded (\c ends the output).
// Without -e a backslash makes it not known: dash's echo decodes it.
func echo(args []string) (string, bool) {
	nl, esc := true, false
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' && strings.Trim(args[0][1:], "neE") == "" {
		for _, c := range args[0][1:] {
			switch c {
			case 'n':
				nl = false
			case 'e':
				esc = true
			case 'E':
				esc = false
			}
		}
		args = args[1:]
	}
	var b strings.Builder
	for i, s := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if !esc && strings.Contains(s, `\`) {
			// dash's echo, and bash's with xpg_echo, decode escapes
			// without -e: which echo runs is not known here.
			return "", false
		}
		if esc {
			out, stop, known := ansiC(s, true)
			if !known {
				return "", false
			}
			b.WriteString(out)
			if stop {
				return b.String(), true
			}
			continue
		}
		b.WriteString(s)
	}
	if nl {
		b.WriteByte('\n')
	}
	return b.String(), true
}

// printf returns what printf FORMAT ARGS writes, the format used again
// while arguments are left (mvdan.cc/sh's printf, whose escapes in the
// format are bash's); not known for -v, an error, or a %b argument with a
// backslash.
func printf(args []string) (string, bool) {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return "", false
	}
	format, rest := args[0], args[1:]
	if strings.Contains(format, "b") && slices.ContainsFunc(rest, func(s string) bool { return strings.Contains(s, `\`) }) {
		return "", false // %b's escapes are bash's own: \0NNN, \c
	}
	var b strings.Builder
	for {
		out, n, err := expand.Format(nil, format, rest)
		if err != nil {
			return "", false
		}
		b.WriteString(out)
		if n <= 0 || n >= len(rest) || b.Len() > maxInput {
			return b.String(), true
		}
		rest = rest[n:]
	}
}

// printNode returns n as a script would write it.
func printNode(n syntax.Node) string {
	var b strings.Builder
	if syntax.NewPrinter(syntax.SingleLine(true)).Print(&b, n) != nil {
		return "a command"
	}
	return b.String()
}
