package check

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/planc/planc/ast"
)

// BuiltinTools returns the names of the runtime's built-in tools, sorted, as
// a fresh slice (the list itself lives in ast, which the parser shares).
func BuiltinTools() []string { return ast.BuiltinTools() }

// CapabilitiesOf builds what validation needs from a parsed capsule
// manifest; nil for a nil manifest (no --capsule: the capability rules are
// off). Call it only on a manifest that parsed without errors: it takes the
// accepted values as they are.
//
//   - Tools is the built-in tools the manifest lists in tools.builtin,
//     sorted, each once; none when tools.builtin is absent (a manifest grants
//     only what it names). MCP servers contribute nothing yet: their tools are
//     only known once the servers run and list them, which the runtime does
//     before validation and adds to this inventory with WithTools
//     (docs/mcp.md). Until then ToolsPending is set when the
//     manifest has MCP servers, and the unknown-tool rule is off.
//   - ShellAllow and SpawnAllow keep the manifest's order, each entry once
//     (an exact duplicate is one grant, not an ambiguity for S15).
//
// submit-plan is never in Tools: capabilities.plan.submit grants it to the
// capsule, and a plan may not name it (S16).
func CapabilitiesOf(m *ast.Manifest) *Capabilities {
	if m == nil {
		return nil
	}
	tools := ast.Names(m.Tools.Builtin)
	slices.Sort(tools)
	return &Capabilities{
		Tools:        slices.Compact(tools),
		ToolsPending: len(m.Tools.MCP) > 0,
		ShellAllow:   uniq(ast.Names(m.Capabilities.ShellAllow)),
		SpawnAllow:   uniq(ast.Names(m.Capabilities.SpawnAllow)),
	}
}

// WithTools returns a copy of c whose inventory also holds names (the tools
// the manifest's MCP servers offer, once they run and list them), sorted,
// each once, and no longer pending. It is nil for a nil c (no capability
// rules); c itself is left alone.
func (c *Capabilities) WithTools(names ...string) *Capabilities {
	if c == nil {
		return nil
	}
	out := *c
	out.Tools = slices.Concat(c.Tools, names)
	slices.Sort(out.Tools)
	out.Tools = slices.Compact(out.Tools)
	out.ToolsPending = false
	return &out
}

// WithSchemas returns a copy of c whose ToolSchemas also hold schemas (tool
// name to input schema JSON text); a schema given for a tool that already
// has one replaces it, so an MCP server's tool of a built-in tool's name
// that the manifest does not grant keeps the server's schema when the MCP
// schemas come last. It is nil for a nil c; c itself is left alone.
func (c *Capabilities) WithSchemas(schemas map[string]json.RawMessage) *Capabilities {
	if c == nil {
		return nil
	}
	out := *c
	out.ToolSchemas = maps.Clone(c.ToolSchemas)
	if out.ToolSchemas == nil {
		out.ToolSchemas = make(map[string]json.RawMessage, len(schemas))
	}
	maps.Copy(out.ToolSchemas, schemas)
	return &out
}

// WithMCP returns a copy of c whose inventory also holds the tools the
// manifest's MCP servers listed, each with its input schema (JSON text, or
// nil for none): WithTools and WithSchemas together.
func (c *Capabilities) WithMCP(tools map[string]json.RawMessage) *Capabilities {
	return c.WithTools(slices.Sorted(maps.Keys(tools))...).WithSchemas(tools)
}

// uniq drops later repeats from names, keeping the first of each in order.
func uniq(names []string) []string {
	seen := make(map[string]bool, len(names))
	out := names[:0]
	for _, n := range names {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// InitFix is the start of the fix of a capability refusal under the
// embedded default capsule, which cannot be edited: make a project
// capsule, then grant what is missing in it.
const InitFix = "run planc init to make .planc/capsule.json, then"

// of names the manifest c comes from, for a refusal: " of PATH", " of the
// embedded default capsule", or "" when c names none.
func (c *Capabilities) of() string {
	switch {
	case c.Embedded:
		return " of the embedded default capsule"
	case c.Manifest != "":
		return " of " + c.Manifest
	}
	return ""
}

// grant is the fix that ends a capability refusal: add entry (already
// quoted, or words) to field of the manifest c comes from.
func (c *Capabilities) grant(entry, field string) string {
	if c.Embedded {
		return fmt.Sprintf("%s add %s to its %s", InitFix, entry, field)
	}
	return fmt.Sprintf("add %s to %s", entry, field)
}
