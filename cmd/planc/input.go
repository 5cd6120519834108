package main

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/check"
	"github.com/planc/planc/host/toolschema"
	"github.com/planc/planc/ir"
	"github.com/planc/planc/parser"
)

// stdinName is how a PLAN argument names standard input, and the file name
// its diagnostics carry.
const stdinName = "-"

// source is one input document: the name it was given by (a path, or "-"
// for standard input) and its bytes.
type source struct {
	name string
	src  []byte
}

// fileDiag is a diagnostic together with the document it belongs to, so
// that the renderers can print the file name and the source line.
type fileDiag struct {
	file *source
	ast.Diagnostic
}

// readSource reads the document named by path ("-" is standard input). It
// reads at most limit+1 bytes, so an oversized document is refused without
// being held in memory; the caller checks len(src) > limit.
func (e *env) readSource(path string, limit int) (*source, error) {
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
	return &source{name: path, src: b}, nil
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

// loadPlan reads, parses and checks the plan at path with caps (nil: no
// capability rules). It returns every diagnostic of the parser and the
// checker, and a non-nil error only when the file cannot be read. plan is
// nil when the document is unusable.
func (e *env) loadPlan(path string, caps *check.Capabilities) (*source, *ast.Plan, []fileDiag, error) {
	lim := parser.DefaultLimits()
	s, err := e.readSource(path, lim.MaxBytes)
	if err != nil {
		return nil, nil, nil, err
	}
	if lim.MaxBytes > 0 && len(s.src) > lim.MaxBytes {
		return s, nil, attach(s, []ast.Diagnostic{tooLarge(lim.MaxBytes, "split the plan into smaller plans")}), nil
	}
	plan, ds := parser.ParsePlan(s.src, lim)
	if plan != nil {
		ds = append(ds, check.Check(plan, caps)...)
	}
	return s, plan, attach(s, ds), nil
}

// loadManifest reads and parses the capsule manifest at path. m is nil
// when the manifest has errors (the diagnostics say why); err is non-nil
// only when the file cannot be read. check.CapabilitiesOf(m) gives what
// check needs; relative paths in m are relative to path's directory.
func (e *env) loadManifest(path string) (m *ast.Manifest, ds []fileDiag, err error) {
	lim := parser.DefaultLimits()
	s, err := e.readSource(path, lim.MaxBytes)
	if err != nil {
		return nil, nil, err
	}
	if lim.MaxBytes > 0 && len(s.src) > lim.MaxBytes {
		return nil, attach(s, []ast.Diagnostic{tooLarge(lim.MaxBytes, "is this file a capsule manifest?")}), nil
	}
	m, pds := parser.ParseManifest(s.src, lim)
	if ast.HasErrors(pds) {
		m = nil
	}
	return m, attach(s, pds), nil
}

// capsOf is what check needs of manifest m: its capabilities, with the
// built-in tools' input schemas for the tool-input rule.
func capsOf(m *ast.Manifest) *check.Capabilities {
	return check.CapabilitiesOf(m).WithSchemas(toolschema.Builtin())
}

// attach pairs each diagnostic with its document.
func attach(s *source, ds []ast.Diagnostic) []fileDiag {
	out := make([]fileDiag, len(ds))
	for i, d := range ds {
		out[i] = fileDiag{file: s, Diagnostic: d}
	}
	return out
}

// sortDiags orders ds by file name, line, column, end, code and message;
// ties keep their order, so the output is deterministic.
func sortDiags(ds []fileDiag) {
	slices.SortStableFunc(ds, func(a, b fileDiag) int {
		sa, sb := a.Span, b.Span
		return cmp.Or(
			cmp.Compare(a.file.name, b.file.name),
			cmp.Compare(sa.Start.Line, sb.Start.Line),
			cmp.Compare(sa.Start.Col, sb.Start.Col),
			cmp.Compare(sa.End.Line, sb.End.Line),
			cmp.Compare(sa.End.Col, sb.End.Col),
			cmp.Compare(a.Code, b.Code),
			cmp.Compare(a.Message, b.Message),
		)
	})
}

// failing reports whether ds makes a command fail: any error, or any
// warning when werror is set.
func failing(ds []fileDiag, werror bool) bool {
	for _, d := range ds {
		if d.Severity == ast.Error || werror {
			return true
		}
	}
	return false
}

// lowerChecked is the front half of the commands that show a plan without
// running it (dump-ir, graph): read the manifest (when given) and the plan,
// check the plan with the manifest's capabilities, print every diagnostic
// on standard error as check prints them, and lower the plan. It returns
// the program, or nil and the exit status to return: 2 for an unreadable
// file or a refused manifest, 1 for a refused plan.
func (e *env) lowerChecked(cmd, capsule, path string) (*ir.Program, int) {
	var caps *check.Capabilities
	var all []fileDiag
	if capsule != "" {
		m, ds, ok := e.manifestArg(cmd, capsule)
		if !ok {
			return nil, exitUsage
		}
		caps, all = capsOf(m), ds
	}
	_, plan, ds, err := e.loadPlan(path, caps)
	if err != nil {
		fmt.Fprintf(e.stderr, "planc %s: %v\n", cmd, err)
		return nil, exitUsage
	}
	all = append(all, ds...)
	sortDiags(all)
	if len(all) > 0 {
		if err := writeText(e.stderr, all); err != nil {
			return nil, e.writeFailed(err)
		}
	}
	if plan == nil || failing(all, false) {
		return nil, exitFail
	}
	prog, err := ir.Lower(plan)
	if err != nil {
		fmt.Fprintf(e.stderr, "planc %s: internal error: %v\n", cmd, err)
		return nil, exitFail
	}
	return prog, exitOK
}

// manifestArg loads the capsule manifest named by --capsule for command
// cmd. A manifest that cannot be read, or is refused (its diagnostics go to
// standard error as check prints them), gives nil and exit status 2.
func (e *env) manifestArg(cmd, path string) (*ast.Manifest, []fileDiag, bool) {
	m, ds, err := e.loadManifest(path)
	if err != nil {
		fmt.Fprintf(e.stderr, "planc %s: capsule manifest: %v\n", cmd, err)
		return nil, nil, false
	}
	if m == nil {
		sortDiags(ds)
		_ = writeText(e.stderr, ds)
		return nil, nil, false
	}
	return m, ds, true
}
