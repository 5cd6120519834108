package check

import (
	"encoding/json"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/parser"
)

// Plan is a plan check accepted: parsed from its text and checked with
// no error diagnostic (warnings may remain). Only Load and Plan.WithTools
// make one, so a *Plan is the proof the later stages take instead of
// checking again: ir.Lower lowers it, host.Run runs it.
type Plan struct {
	syntax *ast.Plan
	src    []byte
	caps   *Capabilities
}

// AST is the plan's syntax tree. The later stages read it and must not
// change it.
func (p *Plan) AST() *ast.Plan { return p.syntax }

// Source is the text the plan was parsed from, positions counting into it.
func (p *Plan) Source() []byte { return p.src }

// Capabilities is what the plan was checked against; nil when the
// capability rules were off.
func (p *Plan) Capabilities() *Capabilities { return p.caps }

// Load is planc's front end for a plan's text, the one every command,
// planc serve, the host and the golden tests go through: the parser's
// limits (semantics S5: size, depth, steps), the parser, and every rule
// of check with caps (nil turns the capability rules off). It returns the
// checked plan, nil when any diagnostic is an error, and every diagnostic
// of the parser and the checker, sorted by position.
func Load(src []byte, caps *Capabilities) (*Plan, []Diagnostic) {
	return LoadLimits(src, caps, parser.DefaultLimits())
}

// LoadLimits is Load with other parser limits than parser.DefaultLimits.
func LoadLimits(src []byte, caps *Capabilities, lim parser.Limits) (*Plan, []Diagnostic) {
	syntax, ds := parser.ParsePlan(src, lim)
	if syntax == nil {
		return nil, ds
	}
	ds = append(ds, Check(syntax, caps)...)
	ast.SortDiagnostics(ds)
	if ast.HasErrors(ds) {
		return nil, ds
	}
	return &Plan{syntax: syntax, src: src, caps: caps}, ds
}

// WithTools checks p again with tools (the tools of the manifest's MCP
// servers, known once they run, each with its input schema as JSON text or
// nil) added to its inventory (Capabilities.WithTools and WithSchemas),
// which turns on the unknown-tool rule that was pending and holds their
// inputs to their schemas (tool-input). It returns the plan so checked, nil
// when it is refused, and the diagnostics of this check, sorted by
// position.
func (p *Plan) WithTools(tools map[string]json.RawMessage) (*Plan, []Diagnostic) {
	caps := p.caps.WithMCP(tools)
	ds := Check(p.syntax, caps)
	if ast.HasErrors(ds) {
		return nil, ds
	}
	return &Plan{syntax: p.syntax, src: p.src, caps: caps}, ds
}
