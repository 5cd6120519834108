package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/check"
	"github.com/planc/planc/host/sandbox"
)

// Servers is the MCP servers of one run and which one serves each of
// their tools. A nil *Servers has none.
type Servers struct {
	servers []*mcpServer // in manifest order
	tools   map[string]mcpTool
}

// mcpTool is one tool of the inventory that an MCP server offers.
type mcpTool struct {
	server *mcpServer
	// readOnly is the tool's annotations.readOnlyHint: it exempts the tool
	// from the read_only check (docs/mcp.md).
	readOnly bool
	// inputSchema is the tool's inputSchema as JSON text, nil when the
	// server gave none: check's tool-input rule holds plans to it.
	inputSchema json.RawMessage
}

// ListMCPToolInputs is what `planc check --capsule` does with a
// manifest's MCP servers: it starts them in dir ("" is the current
// directory), outside any cgroup scope, each in a process group of its
// own; lists their tools; ends them; and returns the tools by name, each
// with its inputSchema as JSON text (nil when the server gave none), which
// check.Capabilities.WithSchemas takes. A first word of a command with a
// slash is relative to manifestDir. It fails, naming the server and what
// happened, when a server does not start and list its tools within
// timeout, and, naming both sources, when a tool name is offered twice (by
// a built-in tool that m grants, or by two servers).
func ListMCPToolInputs(ctx context.Context, m *ast.Manifest, dir, manifestDir string, timeout time.Duration) (map[string]json.RawMessage, error) {
	ms, err := StartServers(ctx, m, Launch{Dir: dir, ManifestDir: manifestDir, Start: sandbox.StartProcess, Timeout: timeout})
	if err != nil {
		return nil, err
	}
	return ms.Schemas(), ms.Close()
}

// StartServers starts every server of m.Tools.MCP at once as l says and
// builds the inventory of their tools. When a server does not start, or a
// name comes from two sources, every server is ended and the error says
// why (one line per server or name).
func StartServers(ctx context.Context, m *ast.Manifest, l Launch) (*Servers, error) {
	ms := &Servers{servers: make([]*mcpServer, len(m.Tools.MCP))}
	errs := make([]error, len(m.Tools.MCP))
	var wg sync.WaitGroup
	for i, srv := range m.Tools.MCP {
		wg.Go(func() {
			ms.servers[i], errs[i] = startMCPServer(ctx, srv, l)
		})
	}
	wg.Wait()
	err := errors.Join(errs...)
	if err == nil {
		err = ms.index(ast.Names(m.Tools.Builtin))
	}
	if err != nil {
		ms.servers = slices.DeleteFunc(ms.servers, func(s *mcpServer) bool { return s == nil })
		ms.Close()
		return nil, err
	}
	return ms, nil
}

// index fills ms.tools from the servers' tool lists, refusing a name that
// a built-in tool the manifest grants, the runtime's submit-plan tool, or
// another server offers too.
func (ms *Servers) index(builtins []string) error {
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

// Names returns the servers' tool names, sorted.
func (ms *Servers) Names() []string {
	if ms == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(ms.tools))
}

// Schemas returns the servers' tools by name, each with its inputSchema
// as JSON text (nil when the server gave none).
func (ms *Servers) Schemas() map[string]json.RawMessage {
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
func (ms *Servers) tool(name string) (mcpTool, bool) {
	if ms == nil {
		return mcpTool{}, false
	}
	t, ok := ms.tools[name]
	return t, ok
}

// call calls the MCP tool name (which must be one: see tool).
func (ms *Servers) call(ctx context.Context, name string, input json.RawMessage) (string, error) {
	t, ok := ms.tool(name)
	if !ok {
		return "", fmt.Errorf("%q is not a tool of an MCP server", name)
	}
	return t.server.call(ctx, name, input)
}

// Close ends every server at once (each gets mcpCloseGrace to exit by
// itself) and returns what went wrong in the clean-up, if anything. A nil
// ms has nothing to close.
func (ms *Servers) Close() error {
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
