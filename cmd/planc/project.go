package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/diag"
	"github.com/planc/planc/host/capenv"
	"github.com/planc/planc/host/session"
)

// capsuleInfo is the capsule a command runs with: the manifest of
// --capsule, else the project's .planc/capsule.json found from the current
// directory upward (capenv.Find), else the embedded default (docs/cli.md).
type capsuleInfo struct {
	// env is the capsule's environment; nil when its manifest was refused
	// (ds says why).
	env *capenv.Env
	// path is the manifest's path, as given or as found relative to the
	// current directory; "" for the embedded default.
	path string
	// found is set when path was found rather than given.
	found bool
	// ds are the manifest's diagnostics: its warnings, or why it was
	// refused.
	ds []diag.Diagnostic
	// refresh lists the MCP servers' tools afresh (--refresh-tools)
	// instead of taking them from the project's cache.
	refresh bool
}

// dir is the directory the manifest's relative paths start from: the
// manifest's own; "" (the working directory) for the embedded default.
func (c *capsuleInfo) dir() string {
	if c.path == "" {
		return ""
	}
	return filepath.Dir(c.path)
}

// newEnv is the environment of manifest m read from c.path (capenv.New);
// with abs, its paths are absolute, for a run working in another
// directory than the one they were found from.
func (c *capsuleInfo) newEnv(m *ast.Manifest, abs bool) *capenv.Env {
	if c.path == "" {
		return capenv.New(nil)
	}
	dir, path := c.dir(), c.path
	if abs {
		dir, path = session.AbsPath("", dir), session.AbsPath("", path)
	}
	if c.path == stdinName {
		return capenv.New(m, capenv.Stdin(), capenv.Dir(dir))
	}
	return capenv.New(m, capenv.Path(path), capenv.Named(c.path), capenv.Dir(dir))
}

// describe says which capsule this is, for --verbose and planc version.
func (c *capsuleInfo) describe() string {
	switch {
	case c.path == "":
		return fmt.Sprintf("the embedded default (there is no %s in the current directory or a parent; planc init makes one)", capenv.ProjectFile)
	case c.found:
		return c.path + " (found from the current directory)"
	}
	return c.env.Name() + " (--capsule)"
}

// workDir is where a run works (S34): flag (--workdir) when given; else
// the project's root — the directory holding the .planc/ whose capsule was
// found — when the capsule was found from the current directory upward;
// else "", the current directory.
func (c *capsuleInfo) workDir(flag string) string {
	switch {
	case flag != "":
		return flag
	case c.found && c.path != "":
		return filepath.Dir(filepath.Dir(c.path))
	}
	return ""
}

// whichCapsule says which capsule flag (--capsule; "" when absent) stands
// for, without reading it: the capsuleInfo's path and found, env still
// nil.
func whichCapsule(flag string) (*capsuleInfo, error) {
	if flag != "" {
		return &capsuleInfo{path: flag}, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("the current directory: %w", err)
	}
	return &capsuleInfo{path: capenv.Find(wd), found: true}, nil
}

// loadCapsule returns the capsule for flag (--capsule; "" when absent).
// err is non-nil only when a manifest file cannot be read (or the current
// directory cannot be known); a refused manifest gives a capsuleInfo whose
// env is nil.
func (e *env) loadCapsule(flag string) (*capsuleInfo, error) {
	c, err := whichCapsule(flag)
	if err != nil {
		return nil, err
	}
	if c.path == "" {
		c.env = c.newEnv(nil, false)
		return c, nil
	}
	var accept func([]byte) error
	if c.found {
		// A discovered manifest is the user's only when they trusted
		// these very bytes: a plan could have written it.
		accept = func(src []byte) error { return trustedCapsule(c.path, src) }
	}
	m, ds, err := e.loadManifest(c.path, accept)
	if errors.Is(err, fs.ErrNotExist) && flag != "" {
		return nil, fmt.Errorf("%w; name an existing manifest, or leave --capsule out to use the project's (planc version says which; planc init makes one)", err)
	}
	if err != nil {
		return nil, err
	}
	if c.ds = ds; m != nil {
		c.env = c.newEnv(m, false)
	}
	return c, nil
}

// capsuleArg is loadCapsule for command cmd that prints what went wrong as
// check prints it (an unreadable manifest, or a refused one's
// diagnostics) and, with verbose, which capsule is used. ok is false when
// the command must exit 2.
func (e *env) capsuleArg(cmd, flag string, verbose bool) (*capsuleInfo, bool) {
	c, err := e.loadCapsule(flag)
	if err != nil {
		fmt.Fprintf(e.stderr, "planc %s: capsule manifest: %v\n", cmd, err)
		return nil, false
	}
	if c.env == nil {
		diag.Sort(c.ds)
		_ = diag.WriteText(e.stderr, c.ds)
		return nil, false
	}
	e.sayCapsule(cmd, c, verbose)
	return c, true
}

// sayCapsule prints, with verbose, the line on standard error that says
// which capsule cmd uses.
func (e *env) sayCapsule(cmd string, c *capsuleInfo, verbose bool) {
	if verbose {
		fmt.Fprintf(e.stderr, "planc %s: capsule: %s\n", cmd, c.describe())
	}
}

// mcpFailed prints why the manifest's MCP servers could not be listed,
// one line per problem, and returns exit status 2.
func (e *env) mcpFailed(cmd string, err error) int {
	for line := range strings.SplitSeq(err.Error(), "\n") {
		fmt.Fprintf(e.stderr, "planc %s: capsule manifest: %s\n", cmd, line)
	}
	return exitUsage
}
