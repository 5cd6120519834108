package tools

import (
	"context"
	"encoding/json"

	"github.com/planc/planc/host/protect"
)

// Inventory is the tools of one run: the built-in tools and the MCP
// servers' tools, which no name may come from both of (StartServers
// refuses that).
type Inventory struct {
	// Builtins are the built-in tools.
	Builtins *Builtins
	// Servers are the MCP servers' tools; nil: none.
	Servers *Servers
}

// Call dispatches a tool step to the MCP server that offers the tool, or
// to the built-in tools.
func (inv *Inventory) Call(ctx context.Context, tool string, input json.RawMessage) (string, error) {
	if _, ok := inv.Servers.tool(tool); ok {
		return inv.Servers.call(ctx, tool, input)
	}
	return inv.Builtins.Call(ctx, tool, input)
}

// Info is what the read_only check knows of tool: an MCP tool's
// readOnlyHint, or that a built-in is one.
func (inv *Inventory) Info(tool string) protect.ToolInfo {
	if t, ok := inv.Servers.tool(tool); ok {
		return protect.ToolInfo{ReadOnlyHint: t.readOnly}
	}
	return protect.ToolInfo{Builtin: IsBuiltin(tool)}
}

// Close ends the MCP servers (Servers.Close).
func (inv *Inventory) Close() error { return inv.Servers.Close() }
