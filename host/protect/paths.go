package protect

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// wordKind says how much of a word is known before it runs.
type wordKind uint8

const (
	// wordExact is a word whose value is known.
	wordExact wordKind = iota
	// wordGlob is a pattern a shell expands against the file system.
	wordGlob
	// wordOpen is a known beginning followed by an expansion whose value
	// cannot be known.
	wordOpen
)

// word is one argument of a command as far as it can be known.
type word struct {
	kind wordKind
	// val is the value of an exact word, or the text a glob leaves when
	// nothing matches it.
	val string
	// pat is, for wordGlob, the pattern (filepath.Match syntax, with
	// quoted metacharacters escaped); for wordOpen, the known beginning in
	// the same syntax.
	pat string
	// text is the word as written in a script, when it is not exact.
	text string
}

func exactWord(s string) word { return word{kind: wordExact, val: s} }

// unknownWord is a word nothing is known of.
var unknownWord = word{kind: wordOpen}

// shown is the word as messages show it.
func (w word) shown() string {
	if w.text != "" {
		return w.text
	}
	if w.kind == wordOpen {
		return unescapeMeta(w.pat) + "…"
	}
	return w.val
}

// exactVal returns the value of an exact word.
func (w word) exactVal() (string, bool) { return w.val, w.kind == wordExact }

const metaChars = `*?[\`

func escapeMeta(s string) string {
	if !strings.ContainsAny(s, metaChars) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(metaChars, s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func unescapeMeta(p string) string {
	if !strings.Contains(p, `\`) {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '\\' && i+1 < len(p) {
			i++
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

// hasMeta reports whether pattern p has an unescaped *, ? or [.
func hasMeta(p string) bool {
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '*', '?', '[':
			return true
		}
	}
	return false
}

// comps splits a clean absolute path or pattern into its components.
func comps(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// under reports whether clean absolute path p is r or lies under it.
func under(p, r string) bool {
	if r == "/" {
		return true
	}
	return p == r || strings.HasPrefix(p, r) && p[len(r)] == '/'
}

// maxLinks bounds the symbolic links resolve follows, as the kernel does.
const maxLinks = 40

// resolve returns absolute path p with the symbolic links among its
// existing components followed, dangling ones included; components from
// the first that does not exist on are applied as written. ".." applies to
// the resolved directory, as the kernel does.
func resolve(p string) string {
	todo := comps(filepath.ToSlash(p))
	cur := "/"
	links := 0
	exists := true
	for len(todo) > 0 {
		c := todo[0]
		todo = todo[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		if !exists {
			cur = next
			continue
		}
		fi, err := os.Lstat(next)
		if err != nil {
			exists = false
			cur = next
			continue
		}
		if fi.Mode()&os.ModeSymlink == 0 || links >= maxLinks {
			cur = next
			continue
		}
		target, err := os.Readlink(next)
		if err != nil {
			cur = next
			continue
		}
		links++
		if filepath.IsAbs(target) {
			cur = "/"
		}
		todo = append(comps(target), todo...)
	}
	return cur
}

// rootPaths is a read_only entry as one check sees it.
type rootPaths struct {
	root
	real              string // abs with symbolic links followed
	absComps, realCmp []string
}

// finding is the first protected write an analysis meets.
type finding struct {
	shown    string // the word as written
	path     string // the absolute path or pattern found
	root     string // the read_only entry as written
	via      string // what writes it
	contains bool   // path contains the root (a recursive write)
	pattern  bool   // path is a pattern
	resolved bool   // path is the word with symbolic links followed
	unparsed string // the parse error, when found in a script's unparsed rest
	planc    bool   // path has a .planc component under the working directory
}

// RuntimeDirName is the name of planc's own directories: a
// .planc/capsule.json is the capsule a later planc run in that directory
// or below would find, so no step writes a path with such a component
// under its working directory (see planted).
const RuntimeDirName = ".planc"

// plantedPattern reports whether clean absolute pattern p can name a
// path planted says is planc's: it has a literal .planc component, and
// its literal beginning lies under the working directory or above it.
func (a *analyzer) plantedPattern(p string) bool {
	pc := comps(p)
	for j, c := range pc {
		if hasMeta(c) || unescapeMeta(c) != RuntimeDirName {
			continue
		}
		k := 0
		for k < j && !hasMeta(pc[k]) {
			k++
		}
		lit := make([]string, k)
		for i, c := range pc[:k] {
			lit[i] = unescapeMeta(c)
		}
		prefix := "/" + strings.Join(lit, "/")
		if k == j {
			return a.planted(filepath.Join(prefix, RuntimeDirName))
		}
		wd := a.c.workDir
		return wd != "" && (under(prefix, wd) || under(wd, prefix))
	}
	return false
}

// planted reports whether clean absolute path p lies under the working
// directory and has a .planc component there: a write that could plant a
// capsule manifest, or a session record, for a later run.
func (a *analyzer) planted(p string) bool {
	wd := a.c.workDir
	if wd == "" || !under(p, wd) || p == wd {
		return false
	}
	rest := strings.TrimPrefix(p[len(wd):], "/")
	if wd == "/" {
		rest = strings.TrimPrefix(p, "/")
	}
	for _, c := range strings.Split(rest, "/") {
		if c == RuntimeDirName {
			return true
		}
	}
	return false
}

// analyzer looks for one protected write.
type analyzer struct {
	c     *Checker
	roots []rootPaths // c's roots resolved, once the first write needs them (resolvedRoots)
	done  bool        // roots is set
	via   string
	found *finding
	steps int // bounds the work of one analysis
	// visit, when set, is given the words of every command read, before
	// anything else is done with it (ShellCommands).
	visit func(words []word)
	// truncated is set when the analysis stopped at one of its bounds:
	// there may be commands it did not read.
	truncated bool
	hook      hookState // command.go
}

func (c *Checker) newAnalyzer() *analyzer { return &analyzer{c: c} }

// resolveRoot is resolve for a read_only entry (tests count the calls).
var resolveRoot = resolve

// resolvedRoots returns the checker's roots, each resolved (its symbolic
// links followed) at the first write the analysis checks, and then kept
// for the rest of it: a step that writes nothing (most) costs no lstat
// of any root.
func (a *analyzer) resolvedRoots() []rootPaths {
	if !a.done {
		a.done = true
		for _, r := range a.c.roots {
			real := resolveRoot(r.abs)
			a.roots = append(a.roots, rootPaths{root: r, real: real, absComps: comps(r.abs), realCmp: comps(real)})
		}
	}
	return a.roots
}

// write reports (and records) whether writing w, relative to any of cwds,
// writes a protected path; tree means everything under w is written too
// (a removal, a move, a recursive change).
func (a *analyzer) write(w word, tree bool, cwds []string) bool {
	if a.found != nil {
		return true
	}
	if len(a.c.roots) == 0 {
		return false // only commands are looked for (ShellCommands)
	}
	switch w.kind {
	case wordExact:
		return w.val != "" && a.exactAll(w, w.val, tree, cwds)
	case wordGlob:
		if a.exactAll(w, w.val, tree, cwds) {
			return true
		}
		for _, cwd := range cwdsFor(w.pat, cwds) {
			if a.pattern(w, joinPattern(cwd, w.pat), tree, false) {
				return true
			}
		}
	case wordOpen:
		if w.pat == "" {
			return false // nothing known: an expansion may be any path
		}
		dir := ""
		if i := strings.LastIndexByte(w.pat, '/'); i >= 0 {
			dir = w.pat[:i+1]
		}
		for _, cwd := range cwdsFor(w.pat, cwds) {
			if a.pattern(w, joinPattern(cwd, dir), false, true) {
				return true
			}
		}
	}
	return false
}

// cwdsFor returns the directories p is relative to: none needed when it is
// absolute.
func cwdsFor(p string, cwds []string) []string {
	if strings.HasPrefix(p, "/") {
		return []string{""}
	}
	return cwds
}

func joinPattern(cwd, p string) string {
	if cwd == "" {
		return filepath.Clean(p)
	}
	return filepath.Clean(escapeMeta(cwd) + "/" + p)
}

func (a *analyzer) exactAll(w word, val string, tree bool, cwds []string) bool {
	for _, cwd := range cwdsFor(val, cwds) {
		raw := val
		if cwd != "" {
			raw = cwd + "/" + val
		}
		if a.exact(w, raw, tree) {
			return true
		}
	}
	return false
}

// exact checks absolute path raw, as written and resolved.
func (a *analyzer) exact(w word, raw string, tree bool) bool {
	lex := filepath.Clean(raw)
	real := resolve(raw)
	for _, r := range a.resolvedRoots() {
		for _, p := range []string{lex, real} {
			for _, rp := range []string{r.abs, r.real} {
				contains := tree && under(rp, p)
				if under(p, rp) || contains {
					a.found = &finding{shown: w.shown(), path: p, root: r.name, via: a.via,
						contains: contains && !under(p, rp), resolved: p != lex}
					return true
				}
			}
		}
	}
	// Then any other .planc directory under the working directory (the
	// protected paths first: their refusals say more).
	for _, p := range []string{lex, real} {
		if a.planted(p) {
			a.found = &finding{shown: w.shown(), path: p, root: RuntimeDirName, via: a.via, resolved: p != lex, planc: true}
			return true
		}
	}
	return false
}

// pattern checks absolute clean pattern pat: it is protected when it can
// match a protected path or something under one, or, for tree, a
// directory containing one. open means pat is a directory and what is
// written lies strictly under it.
func (a *analyzer) pattern(w word, pat string, tree, open bool) bool {
	pats := []string{pat}
	pc := comps(pat)
	k := 0
	for k < len(pc) && !hasMeta(pc[k]) {
		k++
	}
	if k > 0 {
		lit := make([]string, k)
		for i, c := range pc[:k] {
			lit[i] = unescapeMeta(c)
		}
		real := escapeMeta(resolve("/" + strings.Join(lit, "/")))
		if rest := strings.Join(pc[k:], "/"); rest != "" {
			real = strings.TrimSuffix(real, "/") + "/" + rest
		}
		if real != pat {
			pats = append(pats, real)
		}
	}
	for _, r := range a.resolvedRoots() {
		for i, p := range pats {
			pc := comps(p)
			for _, rc := range [][]string{r.absComps, r.realCmp} {
				in := len(pc) >= len(rc) && compsMatch(pc[:len(rc)], rc)
				contains := tree && !open && len(pc) < len(rc) && compsMatch(pc, rc[:len(pc)])
				if in || contains {
					path := p
					if open {
						path = strings.TrimSuffix(p, "/") + "/…"
					}
					a.found = &finding{shown: w.shown(), path: path, root: r.name, via: a.via,
						contains: contains, pattern: hasMeta(p), resolved: i > 0}
					return true
				}
			}
		}
	}
	for i, p := range pats {
		// A literal .planc component (a pattern's * does not name it: a
		// shell's globs skip dot files).
		if a.plantedPattern(p) {
			a.found = &finding{shown: w.shown(), path: p, root: RuntimeDirName, via: a.via, pattern: true, resolved: i > 0, planc: true}
			return true
		}
	}
	return false
}

func compsMatch(pc, rc []string) bool {
	for i := range pc {
		if !compMatch(pc[i], rc[i]) {
			return false
		}
	}
	return true
}

func compMatch(p, name string) bool {
	if !hasMeta(p) {
		return unescapeMeta(p) == name
	}
	ok, err := filepath.Match(p, name)
	if err != nil {
		return unescapeMeta(p) == name
	}
	return ok
}

// refusal turns the finding into a Refusal.
func (a *analyzer) refusal() *Refusal {
	f := a.found
	var msg strings.Builder
	as := ""
	if f.resolved || f.contains && f.pattern {
		as = fmt.Sprintf(" (as %q)", f.path)
	}
	switch {
	case f.planc:
		fmt.Fprintf(&msg, "refused: step writes %q (%s), a path with a %s directory under the working directory%s: "+
			"a capsule manifest there would be what a later planc run finds, so no step writes one; write elsewhere",
			f.shown, f.via, RuntimeDirName, as)
		return &Refusal{Kind: ProtectedPath, Path: f.path, ReadOnly: RuntimeDirName, Hook: -1, Message: msg.String()}
	case f.unparsed != "":
		fmt.Fprintf(&msg, "refused: the script does not parse (%s) and its part from there on names %q, "+
			"which is under capabilities.filesystem.read_only %q; fix the script or remove the path from read_only",
			f.unparsed, f.shown, f.root)
	case f.contains:
		fmt.Fprintf(&msg, "refused: step writes %q and everything under it (%s), which contains "+
			"capabilities.filesystem.read_only %q%s; narrow the path or remove %q from read_only",
			f.shown, f.via, f.root, as, f.root)
	case f.pattern:
		fmt.Fprintf(&msg, "refused: step writes %q (%s), a pattern that can name a path under "+
			"capabilities.filesystem.read_only %q%s; write elsewhere or remove the path from read_only",
			f.shown, f.via, f.root, as)
	case f.resolved:
		fmt.Fprintf(&msg, "refused: step writes %q (%s), which resolves to %q, under "+
			"capabilities.filesystem.read_only %q; write elsewhere or remove the path from read_only",
			f.shown, f.via, f.path, f.root)
	default:
		fmt.Fprintf(&msg, "refused: step writes %q (%s), which is under capabilities.filesystem.read_only %q; "+
			"write elsewhere or remove the path from read_only", f.shown, f.via, f.root)
	}
	return &Refusal{Kind: ProtectedPath, Path: f.path, ReadOnly: f.root, Hook: -1, Message: msg.String()}
}
