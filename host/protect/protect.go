package protect

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/planc/planc/ast"
)

// Kind says which of the two refusals a Refusal is.
type Kind int

// The kinds of Refusal. Kind.String gives the trace event the host writes.
const (
	// ProtectedPath is the read_only refusal (trace line
	// protected_path_denied).
	ProtectedPath Kind = iota + 1
	// CallDenied is a hook's refusal (trace line call_denied).
	CallDenied
)

// String returns the trace event of the kind: "protected_path_denied" or
// "call_denied".
func (k Kind) String() string {
	switch k {
	case ProtectedPath:
		return "protected_path_denied"
	case CallDenied:
		return "call_denied"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Refusal is one step refused before dispatch. It is an error whose text is
// the step's error in the report.
type Refusal struct {
	// Kind is ProtectedPath or CallDenied.
	Kind Kind
	// Path is, for ProtectedPath, the absolute path (or glob pattern) the
	// step would write that lies under a read-only path, cleaned, with
	// symbolic links followed when that is how it was found: the path field
	// of the protected_path_denied line. One ending in "/…" stands for an
	// unknown path under that directory (a word such as src/$f). "" for
	// CallDenied.
	Path string
	// ReadOnly is, for ProtectedPath, the read_only entry as the manifest
	// gives it. "" for CallDenied.
	ReadOnly string
	// Hook is, for CallDenied, the denying hook's index in the manifest's
	// hooks list (ast.Hook.Index), the hook field of the call_denied line;
	// -1 for ProtectedPath.
	Hook int
	// On is, for CallDenied, the hook's event: ast.HookOnToolCall or
	// ast.HookOnShell, the on field of the call_denied line. "" for
	// ProtectedPath.
	On string
	// Message is the whole error text: what was refused, why, and what to
	// do about it.
	Message string
}

// Error returns r.Message.
func (r *Refusal) Error() string { return r.Message }

// Config is what a Checker is built from.
type Config struct {
	// ReadOnly are the capabilities.filesystem.read_only entries as written
	// in the manifest: absolute, or relative to BaseDir.
	ReadOnly []string
	// BaseDir is the manifest's directory. When it is relative it is made
	// absolute against the process's working directory; when it is empty,
	// WorkDir is used.
	BaseDir string
	// Hooks are the manifest's hooks in manifest order; a refusal reports
	// the denying hook's Index. Hooks with another On or CommitPolicy than
	// the ones ast defines never refuse.
	Hooks []ast.Hook
	// WorkDir is the steps' working directory: relative paths in tool
	// inputs and shell words resolve against it. When it is relative it is
	// made absolute against the process's working directory.
	WorkDir string
}

// Checker holds one run's refusal rules. Its methods only read it, so it
// may be shared by goroutines; they do no I/O but the lstat and readlink
// calls that following symbolic links needs.
type Checker struct {
	roots   []root
	hooks   []ast.Hook
	workDir string
}

// root is one read_only entry.
type root struct {
	name string // as written in the manifest
	abs  string // absolute and clean
}

// New builds a Checker. It fails on an empty read_only entry or when a
// directory cannot be made absolute.
func New(cfg Config) (*Checker, error) {
	wd, err := absDir(cfg.WorkDir, "working directory")
	if err != nil {
		return nil, err
	}
	base := wd
	if cfg.BaseDir != "" {
		if base, err = absDir(cfg.BaseDir, "manifest directory"); err != nil {
			return nil, err
		}
	}
	c := &Checker{workDir: wd, hooks: append([]ast.Hook(nil), cfg.Hooks...)}
	for _, p := range cfg.ReadOnly {
		if p == "" {
			return nil, errors.New("protect: capabilities.filesystem.read_only has an empty path")
		}
		abs := p
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(base, abs)
		}
		c.roots = append(c.roots, root{name: p, abs: filepath.Clean(abs)})
	}
	return c, nil
}

// FromManifest builds the Checker of a parsed manifest: its read_only paths
// relative to manifestDir, its hooks, and the steps' working directory.
func FromManifest(m *ast.Manifest, manifestDir, workDir string) (*Checker, error) {
	return New(Config{
		ReadOnly: ast.Names(m.Capabilities.ReadOnly),
		BaseDir:  manifestDir,
		Hooks:    m.Hooks,
		WorkDir:  workDir,
	})
}

func absDir(dir, what string) (string, error) {
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("protect: %s %q: %v", what, dir, err)
	}
	return abs, nil
}

// ToolInfo is what the read_only check knows of a tool. The zero value is
// an MCP tool without readOnlyHint, which is checked.
type ToolInfo struct {
	// Builtin is true for the runtime's built-in tools, of which only
	// write-file writes.
	Builtin bool
	// ReadOnlyHint is an MCP tool's annotations.readOnlyHint: true exempts
	// the tool from the read_only check. Ignored for built-in tools.
	ReadOnlyHint bool
}

// Writes reports whether the read_only check applies to tool.
func (ti ToolInfo) Writes(tool string) bool {
	if ti.Builtin {
		return tool == "write-file"
	}
	return !ti.ReadOnlyHint
}

// Tool checks a tool step about to be dispatched: the on-tool-call hooks
// against the tool's name, then, when info says the tool writes, the
// path-named members of its input (PathKeys) against read_only. input is
// the step's input with references substituted; nil or anything but a JSON
// object has no paths. It returns nil when the step may run.
func (c *Checker) Tool(tool string, input json.RawMessage, info ToolInfo) *Refusal {
	if r := c.hook(ast.HookOnToolCall, []string{tool}); r != nil {
		return r
	}
	if !info.Writes(tool) || len(c.roots) == 0 {
		return nil
	}
	for _, p := range toolPaths(input) {
		a := c.newAnalyzer()
		a.via = fmt.Sprintf("input %q of tool %s", p.key, tool)
		if a.write(exactWord(p.path), false, []string{c.workDir}) {
			return a.refusal()
		}
	}
	return nil
}

// Shell checks a shell step about to be dispatched: the on-shell hooks
// against the commands it runs (ShellCommands), then the words of argv
// against read_only (see the package comment). commandLine is the command
// line as written in the plan, for messages; argv is the runtime's split
// of it (when argv is empty, commandLine split at white space). It returns
// nil when the step may run.
func (c *Checker) Shell(argv []string, commandLine string) *Refusal {
	if len(argv) == 0 {
		argv = strings.Fields(commandLine)
	}
	if c.denies(ast.HookOnShell) {
		cmds, unread := shellCommands(argv)
		if r := c.hook(ast.HookOnShell, cmds); r != nil {
			return r
		}
		if unread != "" {
			return c.unread(cmds[0], unread)
		}
	}
	if len(c.roots) == 0 || len(argv) == 0 {
		return nil
	}
	a := c.newAnalyzer()
	a.command(exactWords(argv), []string{c.workDir}, 0)
	if a.found != nil {
		return a.refusal()
	}
	return nil
}

func exactWords(argv []string) []word {
	words := make([]word, len(argv))
	for i, s := range argv {
		words[i] = exactWord(s)
	}
	return words
}

// ShellCommands returns what an on-shell hook's match is held against for
// a shell step whose words are argv: argv joined by single spaces first,
// then every command found in it, each as its words joined by single
// spaces, in the order they are found and without repeats. The commands
// found are those the read_only check reads (see the package comment):
// the command a wrapper runs (sudo rm x: "rm x"), every simple command of
// a bash -c or sh -c script and of an eval, parsed with mvdan.cc/sh
// (bash -c 'cd d && rm x': "cd d", "rm x"), and what xargs and find -exec
// run. Quotes and escapes in a script are removed as a shell removes them
// ('rm' x, r"m" x and r\m x are all "rm x"); a word whose value cannot be
// known is kept as written ("rm $f"), and an argument xargs or find adds
// is "…". A command whose first word is a path is also given with that
// word's last part ("/bin/rm x" and "rm x").
func ShellCommands(argv []string) []string {
	cmds, _ := shellCommands(argv)
	return cmds
}

// shellCommands is ShellCommands, and why the analysis could not know
// every command argv runs: "" when it could; else it stopped at its
// bounds (4096 statements, 8 nested shells), or a command's name or a
// script is not known before it runs.
func shellCommands(argv []string) (cmds []string, unread string) {
	if len(argv) == 0 {
		return nil, ""
	}
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	add(strings.Join(argv, " "))
	a := &analyzer{c: &Checker{}}
	a.visit = func(words []word) {
		parts := make([]string, len(words))
		for i, w := range words {
			parts[i] = w.shown()
		}
		add(strings.Join(parts, " "))
		if name, ok := words[0].exactVal(); ok && strings.Contains(name, "/") {
			parts[0] = filepath.Base(name)
			add(strings.Join(parts, " "))
		}
	}
	a.command(exactWords(argv), nil, 0)
	switch {
	case a.truncated:
		return out, fmt.Sprintf("holds more commands or nested shells than are read (%d statements, %d levels), "+
			"so the hook cannot be held against every one; split the step into smaller ones", maxSteps, maxDepth)
	case a.hook.unknown != "":
		return out, "runs " + a.hook.unknown + ", so the hook cannot be held against what it runs; " +
			"write the command and its scripts out as literal words in the step"
	}
	return out, ""
}

// denies reports whether a hook on event on can refuse a call.
func (c *Checker) denies(on string) bool {
	for _, h := range c.hooks {
		if h.On == on && h.CommitPolicy == ast.CommitDeny {
			return true
		}
	}
	return false
}

// unread is the refusal of a shell step the on-shell hooks cannot be held
// against in full, for the reason why: the first denying one refuses it.
func (c *Checker) unread(line, why string) *Refusal {
	for _, h := range c.hooks {
		if h.On == ast.HookOnShell && h.CommitPolicy == ast.CommitDeny {
			return &Refusal{
				Kind:    CallDenied,
				Hook:    h.Index,
				On:      h.On,
				Message: fmt.Sprintf("refused by hook %d (%s, commit_policy deny): the command %q %s", h.Index, h.On, line, why),
			}
		}
	}
	return nil
}

// hook returns the refusal of the first denying hook on event on whose
// match matches one of subjects: the tool's name, or the commands of a
// shell step (ShellCommands, the command line first).
func (c *Checker) hook(on string, subjects []string) *Refusal {
	for _, h := range c.hooks {
		if h.On != on || h.CommitPolicy != ast.CommitDeny {
			continue
		}
		for i, subject := range subjects {
			if !globMatch(h.Match, subject) {
				continue
			}
			var what string
			fix := "change the command or the hook"
			switch {
			case on == ast.HookOnToolCall:
				what, fix = fmt.Sprintf("the tool name %q", subject), "call another tool or change the hook"
			case i == 0:
				what = fmt.Sprintf("the command %q", subject)
			default:
				what = fmt.Sprintf("the command %q, which %q runs,", subject, subjects[0])
			}
			match := "no match: every call"
			if h.Match != "" {
				match = fmt.Sprintf("match %q", h.Match)
			}
			return &Refusal{
				Kind: CallDenied,
				Hook: h.Index,
				On:   on,
				Message: fmt.Sprintf("refused by hook %d (%s, %s, commit_policy deny): %s matches; %s",
					h.Index, on, match, what, fix),
			}
		}
	}
	return nil
}

// globMatch reports whether pattern matches all of s: "*" matches any
// runes, "?" one rune, anything else itself. An empty pattern matches
// everything (an absent match field).
func globMatch(pattern, s string) bool {
	if pattern == "" {
		return true
	}
	p, t := []rune(pattern), []rune(s)
	pi, ti := 0, 0
	star, mark := -1, 0
	for ti < len(t) {
		switch {
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, ti
			pi++
		case pi < len(p) && (p[pi] == '?' || p[pi] == t[ti]):
			pi++
			ti++
		case star >= 0:
			pi = star + 1
			mark++
			ti = mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}
