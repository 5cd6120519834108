package capenv

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/check"
	"github.com/planc/planc/diag"
	"github.com/planc/planc/host/tools"
	"github.com/planc/planc/parser"
)

// ProjectFile is the project's capsule manifest, relative to the
// directory it belongs to: without --capsule, planc looks for it in the
// current directory and then in each parent (Find).
var ProjectFile = filepath.Join(".planc", "capsule.json")

// Find returns the nearest ProjectFile from dir upward (dir itself, then
// each parent up to the filesystem root), relative to dir when it can be;
// "" when there is none. A directory planc may not look into is passed
// over; anything else of that name is returned, so that reading it says
// what is wrong with it.
func Find(dir string) string {
	for d := dir; ; {
		p := filepath.Join(d, ProjectFile)
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

// TooLarge is the diagnostic for a document over the size limit (S5). The
// parser reports the same code, but only the reader knows that the
// document was cut at limit+1 bytes, so the message does not claim a
// size. fix ends the message.
func TooLarge(limit int, fix string) ast.Diagnostic {
	at := ast.Pos{Offset: 0, Line: 1, Col: 1}
	return ast.Diagnostic{
		Span:     ast.Span{Start: at, End: at},
		Severity: ast.Error,
		Code:     parser.CodeTooLarge,
		Message:  fmt.Sprintf("the document is over the limit of %d bytes; %s", limit, fix),
	}
}

// ParseManifest parses the capsule manifest f, read at most one byte over
// the parser's size limit. m is nil when the manifest has errors (the
// diagnostics say why).
func ParseManifest(f *diag.File) (m *ast.Manifest, ds []diag.Diagnostic) {
	lim := parser.DefaultLimits()
	if lim.MaxBytes > 0 && len(f.Src) > lim.MaxBytes {
		return nil, diag.Attach(f, []ast.Diagnostic{TooLarge(lim.MaxBytes, "is this file a capsule manifest?")})
	}
	m, pds := parser.ParseManifest(f.Src, lim)
	if ast.HasErrors(pds) {
		m = nil
	}
	return m, diag.Attach(f, pds)
}

// LoadFile is Load for the plan file f, read at most one byte over the
// parser's size limit, with its diagnostics attached to f: plan is nil
// when it is refused.
func (e *Env) LoadFile(f *diag.File) (*check.Plan, []diag.Diagnostic) {
	lim := parser.DefaultLimits()
	if lim.MaxBytes > 0 && len(f.Src) > lim.MaxBytes {
		return nil, diag.Attach(f, []ast.Diagnostic{TooLarge(lim.MaxBytes, "split the plan into smaller plans")})
	}
	plan, ds := e.Load(f.Src)
	return plan, diag.Attach(f, ds)
}

// ListTools lists the capsule's tool inventory (tools.ListTools) with o:
// the built-in tools it grants and its MCP servers' tools, the servers'
// commands starting from Dir (else o.Dir, else the current directory).
func (e *Env) ListTools(ctx context.Context, o tools.ListOptions) ([]tools.ToolInfo, error) {
	o.ManifestDir = cmp.Or(e.dir, o.Dir, ".")
	return tools.ListTools(ctx, e.m, o)
}

// Listing is infos, the capsule's tools as ListTools listed them, named
// as planc tools and serve's list-tools name the capsule.
func (e *Env) Listing(infos []tools.ToolInfo) tools.Listing {
	name := e.name
	if name == "" {
		name = "the embedded default capsule"
	}
	return tools.Listing{Capsule: name, Tools: infos}
}
