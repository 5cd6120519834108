package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/diag"
	"github.com/planc/planc/host/capenv"
	"github.com/planc/planc/ir"
	"github.com/planc/planc/parser"
)

// stdinName is how a PLAN argument names standard input, and the file name
// its diagnostics carry.
const stdinName = "-"

// readSource reads the document named by path ("-" is standard input). It
// reads at most limit+1 bytes, so an oversized document is refused without
// being held in memory; the caller checks len(src) > limit.
func (e *env) readSource(path string, limit int) (*diag.File, error) {
	var r io.Reader
	if path == stdinName {
		r = e.stdin
		if r == nil {
			r = strings.NewReader("")
		}
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	if limit > 0 {
		r = io.LimitReader(r, int64(limit)+1)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		if path == stdinName {
			return nil, fmt.Errorf("read standard input: %w", err)
		}
		return nil, err // an *fs.PathError: it names the file
	}
	return &diag.File{Name: path, Src: b}, nil
}

// readPlan reads the plan at path, at most one byte over the size limit.
func (e *env) readPlan(path string) (*diag.File, error) {
	return e.readSource(path, parser.DefaultLimits().MaxBytes)
}

// loadManifest reads and parses (capenv.ParseManifest) the capsule
// manifest at path, handing the bytes read to accept (when not nil)
// first, whose error it returns: the bytes judged are the bytes used. m
// is nil when the manifest has errors (the diagnostics say why); err is
// non-nil only when the file cannot be read or accept refuses it.
func (e *env) loadManifest(path string, accept func(src []byte) error) (m *ast.Manifest, ds []diag.Diagnostic, err error) {
	f, err := e.readSource(path, parser.DefaultLimits().MaxBytes)
	if err != nil {
		return nil, nil, err
	}
	if accept != nil {
		if err := accept(f.Src); err != nil {
			return nil, nil, err
		}
	}
	m, ds = capenv.ParseManifest(f)
	return m, ds, nil
}

// lowerChecked is the front half of the commands that show a plan without
// running it (dump-ir, graph): load the capsule (--capsule flag, else the
// one found, else the embedded default) with its MCP servers' tools, read
// the plan and check it with the capsule's capabilities, print every
// diagnostic on standard error as check prints them, and lower the plan.
// It returns the program, or nil and the exit status to return: 2 for an
// unreadable file, a refused manifest or an MCP server that did not start,
// 1 for a refused plan.
func (e *env) lowerChecked(cmd, flag string, verbose bool, path string) (*ir.Program, int) {
	c, ok := e.capsuleArg(cmd, flag, verbose)
	if !ok {
		return nil, exitUsage
	}
	f, err := e.readPlan(path)
	if err != nil {
		fmt.Fprintf(e.stderr, "planc %s: %v\n", cmd, err)
		return nil, exitUsage
	}
	env, err := c.envFor(f.Src)
	if err != nil {
		return nil, e.mcpFailed(cmd, err)
	}
	plan, ds := env.LoadFile(f)
	all := append(c.ds, ds...)
	diag.Sort(all)
	if len(all) > 0 {
		if err := diag.WriteText(e.stderr, all); err != nil {
			return nil, e.writeFailed(err)
		}
	}
	if plan == nil {
		return nil, exitFail
	}
	prog, err := ir.Lower(plan)
	if err != nil {
		fmt.Fprintf(e.stderr, "planc %s: internal error: %v\n", cmd, err)
		return nil, exitFail
	}
	return prog, exitOK
}
