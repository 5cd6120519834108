package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/check"
	"github.com/planc/planc/diag"
	"github.com/planc/planc/host"
	"github.com/planc/planc/host/tools"
	"github.com/planc/planc/host/toolschema"
)

// projectCapsule is the project's capsule manifest, relative to the
// directory it belongs to: every command without --capsule looks for it in
// the current directory and then in each parent (findCapsule).
var projectCapsule = filepath.Join(".planc", "capsule.json")

// capsuleInfo is the capsule a command runs with: the manifest of
// --capsule, else the project's .planc/capsule.json found from the current
// directory upward, else the embedded default (docs/cli.md).
type capsuleInfo struct {
	// m is the manifest; nil when it was refused (ds says why).
	m *ast.Manifest
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

// caps is what check needs of the capsule: its capabilities, the built-in
// tools' input schemas, and the manifest's name for the fixes (the
// manifest's MCP servers' tools are pending: see withMCP).
func (c *capsuleInfo) caps() *check.Capabilities {
	caps := check.CapabilitiesOf(c.m).WithSchemas(toolschema.Builtin())
	caps.Manifest, caps.Embedded = c.name(), c.path == ""
	caps.Found = tools.BinaryFinder("")
	return caps
}

// protectPath is the manifest file the plan's steps may not write
// (host.Config.ManifestPath): its path, "" for the embedded manifest and
// for standard input.
func (c *capsuleInfo) protectPath() string {
	if c.path == stdinName {
		return ""
	}
	return c.path
}

// name is how refusals name the manifest: its path, or standard input.
func (c *capsuleInfo) name() string {
	if c.path == stdinName {
		return "the manifest on standard input"
	}
	return c.path
}

// describe says which capsule this is, for --verbose and planc version.
func (c *capsuleInfo) describe() string {
	switch {
	case c.path == "":
		return fmt.Sprintf("the embedded default (there is no %s in the current directory or a parent; planc init makes one)", projectCapsule)
	case c.found:
		return c.path + " (found from the current directory)"
	}
	return c.name() + " (--capsule)"
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

// findCapsule returns the nearest .planc/capsule.json from dir upward (dir
// itself, then each parent up to the filesystem root), relative to dir
// when it can be; "" when there is none. A directory planc may not look
// into is passed over; anything else of that name is returned, so that
// reading it says what is wrong with it.
func findCapsule(dir string) string {
	for d := dir; ; {
		p := filepath.Join(d, projectCapsule)
		if _, err := os.Stat(p); err == nil {
			if rel, err := filepath.Rel(dir, p); err == nil {
				return rel
			}
			return p
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// whichCapsule says which capsule flag (--capsule; "" when absent) stands
// for, without reading it: the capsuleInfo's path and found, m still nil.
func whichCapsule(flag string) (*capsuleInfo, error) {
	if flag != "" {
		return &capsuleInfo{path: flag}, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("the current directory: %w", err)
	}
	return &capsuleInfo{path: findCapsule(wd), found: true}, nil
}

// loadCapsule returns the capsule for flag (--capsule; "" when absent).
// err is non-nil only when a manifest file cannot be read (or the current
// directory cannot be known); a refused manifest gives a capsuleInfo whose
// m is nil.
func (e *env) loadCapsule(flag string) (*capsuleInfo, error) {
	c, err := whichCapsule(flag)
	if err != nil {
		return nil, err
	}
	if c.path == "" {
		c.m = host.DefaultManifest()
		return c, nil
	}
	var accept func([]byte) error
	if c.found {
		// A discovered manifest is the user's only when they trusted
		// these very bytes: a plan could have written it.
		accept = func(src []byte) error { return trustedCapsule(c.path, src) }
	}
	m, ds, err := e.loadManifestChecked(c.path, accept)
	if errors.Is(err, fs.ErrNotExist) && flag != "" {
		return nil, fmt.Errorf("%w; name an existing manifest, or leave --capsule out to use the project's (planc version says which; planc init makes one)", err)
	}
	if err != nil {
		return nil, err
	}
	c.m, c.ds = m, ds
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
	if c.m == nil {
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

// withMCP is caps with the tools of the manifest's MCP servers and their
// input schemas, which only the servers know: listTools lists them, from
// the project's cache or by starting the servers, as planc check does.
// Without MCP servers it is caps. The error has one line per problem.
func (c *capsuleInfo) withMCP(caps *check.Capabilities) (*check.Capabilities, error) {
	if len(c.m.Tools.MCP) == 0 {
		return caps, nil
	}
	infos, err := c.listTools()
	if err != nil {
		return nil, err
	}
	return caps.WithMCP(tools.MCPInputs(infos)), nil
}

// mcpFailed prints why the manifest's MCP servers could not be listed,
// one line per problem, and returns exit status 2.
func (e *env) mcpFailed(cmd string, err error) int {
	for line := range strings.SplitSeq(err.Error(), "\n") {
		fmt.Fprintf(e.stderr, "planc %s: capsule manifest: %s\n", cmd, line)
	}
	return exitUsage
}
