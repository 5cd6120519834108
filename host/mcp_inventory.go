package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/check"
	"github.com/planc/planc/host/protect"
	"github.com/planc/planc/host/shell"
	"github.com/planc/planc/host/toolschema"
)

// mcpServers is the MCP servers of one run and which one serves each of
// their tools. A nil *mcpServers has none.
type mcpServers struct {
	servers []*mcpServer // in manifest order
	tools   map[string]mcpTool
}

// mcpTool is one tool of the inventory that an MCP server offers.
type mcpTool struct {
	server *mcpServer
	// readOnly is the tool's annotations.readOnlyHint: it exempts the tool
	// from the read_only check (runtime.md, "Refusals of one step").
	readOnly bool
	// inputSchema is the tool's inputSchema as JSON text, nil when the
	// server gave none: check's tool-input rule holds plans to it.
	inputSchema json.RawMessage
}

// mcpStarter is a scope that can start an MCP server inside itself:
// host/shell's *Scope.
type mcpStarter interface {
	StartProcess(cmd *exec.Cmd, kind string) (*shell.Process, error)
}

// startMCP starts the manifest's MCP servers for a run, once, in the
// plan's scope (h.scope; a process group each when the scope cannot start
// processes, as in tests), joins their tools to the inventory, and
// checks plan (parsed from src) again with the whole inventory, which
// the validations before had to leave pending. Every error is a
// *RefusedError: a server that does not start, a tool name offered by two
// sources, a plan that names a tool no source offers. On error nothing is
// left running.
func (h *runHost) startMCP(ctx context.Context, m *ast.Manifest, manifestDir string, plan *ast.Plan, src []byte) error {
	if len(m.Tools.MCP) == 0 {
		return nil
	}
	start := shell.StartProcess
	if ps, ok := h.scope.(mcpStarter); ok {
		start = func(cmd *exec.Cmd) (*shell.Process, error) { return ps.StartProcess(cmd, "mcp") }
	}
	ms, err := startMCPServers(ctx, m, h.workDir, manifestDir, start, MCPStartTimeout)
	if err != nil {
		return &RefusedError{Msg: err.Error()}
	}
	caps := check.CapabilitiesOf(m).WithSchemas(toolschema.Builtin()).WithTools(ms.names()...).WithSchemas(ms.schemas())
	if ds := check.Check(plan, caps); ast.HasErrors(ds) {
		ms.close()
		return &RefusedError{Diagnostics: ds, Source: src}
	}
	h.mcp = ms
	return nil
}

// ListMCPTools is what `planc check --capsule` does with a manifest's MCP
// servers: it starts them in dir ("" is the current directory), outside
// any cgroup scope, each in a process group of its own; lists their tools;
// ends them; and returns the names of the tools, sorted. A first word of a
// command with a slash is relative to manifestDir. It fails, naming the
// server and what happened, when a server does not start and list its
// tools within timeout, and, naming both sources, when a tool name is
// offered twice (by a built-in tool that m grants, or by two servers).
func ListMCPTools(ctx context.Context, m *ast.Manifest, dir, manifestDir string, timeout time.Duration) ([]string, error) {
	inputs, err := ListMCPToolInputs(ctx, m, dir, manifestDir, timeout)
	return slices.Sorted(maps.Keys(inputs)), err
}

// ListMCPToolInputs is ListMCPTools that also keeps each tool's
// inputSchema: it returns the servers' tools by name, each with its
// inputSchema as JSON text (nil when the server gave none), which
// check.Capabilities.WithSchemas takes.
func ListMCPToolInputs(ctx context.Context, m *ast.Manifest, dir, manifestDir string, timeout time.Duration) (map[string]json.RawMessage, error) {
	ms, err := startMCPServers(ctx, m, dir, manifestDir, shell.StartProcess, timeout)
	if err != nil {
		return nil, err
	}
	return ms.schemas(), ms.close()
}

// startMCPServers starts every server of m.Tools.MCP at once and builds
// the inventory of their tools. When a server does not start, or a name
// comes from two sources, every server is ended and the error says why
// (one line per server or name).
func startMCPServers(ctx context.Context, m *ast.Manifest, dir, manifestDir string, start startFunc, timeout time.Duration) (*mcpServers, error) {
	ms := &mcpServers{servers: make([]*mcpServer, len(m.Tools.MCP))}
	errs := make([]error, len(m.Tools.MCP))
	var wg sync.WaitGroup
	for i, srv := range m.Tools.MCP {
		wg.Go(func() {
			ms.servers[i], errs[i] = startMCPServer(ctx, srv, dir, manifestDir, start, timeout)
		})
	}
	wg.Wait()
	err := errors.Join(errs...)
	if err == nil {
		err = ms.index(ast.Names(m.Tools.Builtin))
	}
	if err != nil {
		ms.servers = slices.DeleteFunc(ms.servers, func(s *mcpServer) bool { return s == nil })
		ms.close()
		return nil, err
	}
	return ms, nil
}

// index fills ms.tools from the servers' tool lists, refusing a name that
// a built-in tool the manifest grants, the runtime's submit-plan tool, or
// another server offers too.
func (ms *mcpServers) index(builtins []string) error {
	ms.tools = map[string]mcpTool{}
	source := map[string]string{check.SubmitPlan: "the runtime's submit-plan tool"}
	for _, b := range builtins {
		source[b] = "the built-in tools (tools.builtin)"
	}
	var clashes []string
	for _, s := range ms.servers {
		for _, t := range s.tools {
			if _, ok := ms.tools[t.Name]; ok && ms.tools[t.Name].server == s {
				continue // listed twice by one server: one source
			}
			this := fmt.Sprintf("MCP server %q", s.name)
			if other, ok := source[t.Name]; ok {
				clashes = append(clashes, fmt.Sprintf("tool %q is offered by two sources, %s and %s; a tool name must come from one source, so drop one of them from the manifest", t.Name, other, this))
				continue
			}
			source[t.Name] = this
			ms.tools[t.Name] = mcpTool{server: s, readOnly: t.Annotations != nil && t.Annotations.ReadOnlyHint, inputSchema: schemaText(t.InputSchema)}
		}
	}
	slices.Sort(clashes)
	if len(clashes) > 0 {
		return errors.New(strings.Join(clashes, "\n"))
	}
	return nil
}

// names returns the servers' tool names, sorted.
func (ms *mcpServers) names() []string {
	if ms == nil {
		return nil
	}
	out := make([]string, 0, len(ms.tools))
	for n := range ms.tools {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// schemas returns the servers' tools by name, each with its inputSchema.
func (ms *mcpServers) schemas() map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	if ms != nil {
		for n, t := range ms.tools {
			out[n] = t.inputSchema
		}
	}
	return out
}

// schemaText returns a tool's inputSchema, as the MCP SDK decoded it, as
// JSON text; nil when there is none.
func schemaText(schema any) json.RawMessage {
	if schema == nil {
		return nil
	}
	b, err := json.Marshal(schema)
	if err != nil {
		return nil
	}
	return b
}

// tool returns the MCP tool called name, if a server offers it.
func (ms *mcpServers) tool(name string) (mcpTool, bool) {
	if ms == nil {
		return mcpTool{}, false
	}
	t, ok := ms.tools[name]
	return t, ok
}

// call calls the MCP tool name (which must be one: see tool).
func (ms *mcpServers) call(ctx context.Context, name string, input json.RawMessage) (string, error) {
	t, ok := ms.tool(name)
	if !ok {
		return "", fmt.Errorf("%q is not a tool of an MCP server", name)
	}
	return t.server.call(ctx, name, input)
}

// close ends every server at once (mcpServer.close) and returns what went
// wrong in the clean-up, if anything. A nil ms has nothing to close.
func (ms *mcpServers) close() error {
	if ms == nil {
		return nil
	}
	errs := make([]error, len(ms.servers))
	var wg sync.WaitGroup
	for i, s := range ms.servers {
		wg.Go(func() { errs[i] = s.close() })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// toolInfo is what the read_only check knows of tool: an MCP tool's
// readOnlyHint, or that a built-in is one.
func (h *runHost) toolInfo(tool string) protect.ToolInfo {
	if t, ok := h.mcp.tool(tool); ok {
		return protect.ToolInfo{ReadOnlyHint: t.readOnly}
	}
	return protect.ToolInfo{Builtin: IsBuiltin(tool)}
}

// callTool dispatches a tool step to the MCP server that offers the tool,
// or to the built-in tools.
func (h *runHost) callTool(ctx context.Context, tool string, input json.RawMessage) (string, error) {
	if _, ok := h.mcp.tool(tool); ok {
		return h.mcp.call(ctx, tool, input)
	}
	return h.tools.Call(ctx, tool, input)
}
