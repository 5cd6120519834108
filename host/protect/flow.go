package protect

import (
	"os"
	"path/filepath"
	"slices"

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
	out := a.cmd(st.Cmd, cwds, depth)
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
		a.stmt(c.Y, cwds, depth)
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
