package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/check"
	"github.com/planc/planc/diag"
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

// tooLarge is the diagnostic for a document over the size limit (S5). The
// parser reports the same code, but only the reader knows that the document
// was cut at limit+1 bytes, so the message does not claim a size. fix ends
// the message.
func tooLarge(limit int, fix string) ast.Diagnostic {
	at := ast.Pos{Offset: 0, Line: 1, Col: 1}
	return ast.Diagnostic{
		Span:     ast.Span{Start: at, End: at},
		Severity: ast.Error,
		Code:     parser.CodeTooLarge,
		Message:  fmt.Sprintf("the document is over the limit of %d bytes; %s", limit, fix),
	}
}

// loadPlan reads the plan at path and runs the front end on it
// (check.Load) with caps. It returns every
// diagnostic of the parser and the checker, and a non-nil error only when
// the file cannot be read. plan is nil when the plan is refused.
func (e *env) loadPlan(path string, caps *check.Capabilities) (*diag.File, *check.Plan, []diag.Diagnostic, error) {
	f, err := e.readPlan(path)
	if err != nil {
		return nil, nil, nil, err
	}
	plan, ds := e.checkPlan(f, caps)
	return f, plan, ds, nil
}

// readPlan reads the plan at path, at most one byte over the size limit.
func (e *env) readPlan(path string) (*diag.File, error) {
	return e.readSource(path, parser.DefaultLimits().MaxBytes)
}

// checkPlan runs the front end (check.Load) with caps on the plan f that
// readPlan read: plan is nil when it is refused.
func (e *env) checkPlan(f *diag.File, caps *check.Capabilities) (*check.Plan, []diag.Diagnostic) {
	lim := parser.DefaultLimits()
	if lim.MaxBytes > 0 && len(f.Src) > lim.MaxBytes {
		return nil, diag.Attach(f, []ast.Diagnostic{tooLarge(lim.MaxBytes, "split the plan into smaller plans")})
	}
	plan, ds := check.Load(f.Src, caps)
	return plan, diag.Attach(f, ds)
}

// loadManifest reads and parses the capsule manifest at path. m is nil
// when the manifest has errors (the diagnostics say why); err is non-nil
// only when the file cannot be read. Relative paths in m are relative to
// path's directory.
func (e *env) loadManifest(path string) (m *ast.Manifest, ds []diag.Diagnostic, err error) {
	return e.loadManifestChecked(path, nil)
}

// loadManifestChecked is loadManifest that, before parsing, hands the
// bytes read to accept (when not nil), whose error it returns: the
// bytes judged are the bytes used.
func (e *env) loadManifestChecked(path string, accept func(src []byte) error) (m *ast.Manifest, ds []diag.Diagnostic, err error) {
	lim := parser.DefaultLimits()
	f, err := e.readSource(path, lim.MaxBytes)
	if err != nil {
		return nil, nil, err
	}
	if accept != nil {
		if err := accept(f.Src); err != nil {
			return nil, nil, err
		}
	}
	if lim.MaxBytes > 0 && len(f.Src) > lim.MaxBytes {
		return nil, diag.Attach(f, []ast.Diagnostic{tooLarge(lim.MaxBytes, "is this file a capsule manifest?")}), nil
	}
	m, pds := parser.ParseManifest(f.Src, lim)
	if ast.HasErrors(pds) {
		m = nil
	}
	return m, diag.Attach(f, pds), nil
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
	caps, err := c.capsFor(c.caps(), f.Src)
	if err != nil {
		return nil, e.mcpFailed(cmd, err)
	}
	plan, ds := e.checkPlan(f, caps)
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
