package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/planc/planc/host/protect"
	"github.com/planc/planc/internal/testkit"
)

// memServer connects an in-memory MCP server with the test tools (see
// testkit.AddMCPTools) and returns it as a run's server called name.
func memServer(t *testing.T, name string, tools ...string) *mcpServer {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "mem", Version: "1"}, nil)
	testkit.AddMCPTools(srv, tools...)
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := &mcpServer{name: name}
	if err := s.handshake(ctx, ct); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.close(); ss.Close() })
	return s
}

func TestMCPCall(t *testing.T) {
	s := memServer(t, "mem")
	tests := []struct {
		tool, input string
		out, err    string
	}{
		{"echo", `{"text": "hi", "times": 3}`, "hi\nhi\nhi", ""},
		{"echo", `{"text": "once"}`, "once", ""},
		{"mixed", ``, "only this", ""},
		{"fail", `{}`, "the disk is on fire", "fail: the disk is on fire"},
		{"nothing", `{}`, "", "nothing: the tool reported an error without a message"},
		{"broken", `{}`, "", `broken: MCP server "mem": `},
		{"args", ``, "{}", ""},
		{"args", `null`, "{}", ""},
		{"args", `{"a": [1, "$x"]}`, `{"a":[1,"$x"]}`, ""},
		{"args", `[1]`, "", "args: the input of an MCP tool must be a JSON object"},
		{"args", `"x"`, "", "args: the input of an MCP tool must be a JSON object"},
		{"echo", `{"times": "x"}`, "validating", "echo: validating"},
	}
	for _, tt := range tests {
		var in json.RawMessage
		if tt.input != "" {
			in = json.RawMessage(tt.input)
		}
		out, err := s.call(context.Background(), tt.tool, in)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if !strings.HasPrefix(strings.ReplaceAll(out, " ", ""), strings.ReplaceAll(tt.out, " ", "")) || !strings.HasPrefix(got, tt.err) || (tt.err == "") != (err == nil) {
			t.Errorf("%s %s = %q, %q; want %q, %q…", tt.tool, tt.input, out, got, tt.out, tt.err)
		}
	}
}

func TestMCPIndex(t *testing.T) {
	a, b := memServer(t, "a", "echo", "look"), memServer(t, "b", "echo", "args")
	ms := &Servers{servers: []*mcpServer{a, b}}
	err := ms.index([]string{"notes"})
	want := `tool "echo" is offered by two sources, MCP server "a" and MCP server "b"`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("two servers: %v; want %s…", err, want)
	}

	ms = &Servers{servers: []*mcpServer{a}}
	err = ms.index([]string{"echo", "notes"})
	want = `tool "echo" is offered by two sources, the built-in tools (tools.builtin) and MCP server "a"`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("a built-in: %v; want %s…", err, want)
	}

	sp := memServer(t, "sp")
	sp.tools = append(sp.tools, &mcp.Tool{Name: "submit-plan"})
	ms = &Servers{servers: []*mcpServer{sp}}
	if err := ms.index(nil); err == nil || !strings.Contains(err.Error(), `the runtime's submit-plan tool and MCP server "sp"`) {
		t.Errorf("submit-plan: %v", err)
	}

	// A built-in that the manifest does not grant is no source: the
	// server's tool of that name is the one the plan calls.
	ms = &Servers{servers: []*mcpServer{a, memServer(t, "c", "args")}}
	if err := ms.index([]string{"notes"}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(ms.Names(), " "); got != "args echo look" {
		t.Errorf("names %q", got)
	}
	if ms.tools["look"].server != a || !ms.tools["look"].readOnly || ms.tools["echo"].readOnly {
		t.Errorf("tools %+v", ms.tools)
	}
	var none *Servers
	if _, ok := none.tool("echo"); ok || none.Names() != nil || none.Close() != nil {
		t.Error("a nil *Servers has tools")
	}
}

// TestInventory: a tool an MCP server offers is called there and its
// readOnlyHint tells the read_only check; any other name goes to the
// built-in tools.
func TestInventory(t *testing.T) {
	ms := &Servers{servers: []*mcpServer{memServer(t, "m", "args", "look")}}
	if err := ms.index(nil); err != nil {
		t.Fatal(err)
	}
	inv := &Inventory{Builtins: &Builtins{WorkDir: t.TempDir(), Inputs: schemaInputs{}}, Servers: ms}
	for tool, want := range map[string]protect.ToolInfo{"look": {ReadOnlyHint: true}, "args": {}, "write-file": {Builtin: true}, "other": {}} {
		if got := inv.Info(tool); got != want {
			t.Errorf("Info(%s) = %+v, want %+v", tool, got, want)
		}
	}
	if out, err := inv.Call(context.Background(), "look", json.RawMessage(`{"path": "src"}`)); out != "looked" || err != nil {
		t.Errorf("Call(look) = %q, %v", out, err)
	}
	if _, err := inv.Call(context.Background(), "read-file", json.RawMessage(`{"path": "none"}`)); err == nil || !strings.HasPrefix(err.Error(), "read-file: ") {
		t.Errorf("Call(read-file) = %v; want the built-in's error", err)
	}
	none := &Inventory{Builtins: &Builtins{}}
	if got := none.Info("look"); got != (protect.ToolInfo{}) || none.Close() != nil {
		t.Errorf("an inventory without servers: Info(look) = %+v", got)
	}
}

// TestMCPStructuredOnly: a result with structured content and no text
// content gives the structured content as compact JSON; with a text
// content too, the text is the output, as docs/mcp.md says.
func TestMCPStructuredOnly(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "mem", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "structured", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{}, StructuredContent: map[string]any{"count": 3, "names": []string{"a", "b"}}}, nil
	})
	srv.AddTool(&mcp.Tool{Name: "both", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "three"}}, StructuredContent: map[string]any{"count": 3}}, nil
	})
	srv.AddTool(&mcp.Tool{Name: "failing", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{}, IsError: true, StructuredContent: map[string]any{"reason": "quota"}}, nil
	})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := &mcpServer{name: "mem"}
	if err := s.handshake(context.Background(), ct); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.close(); ss.Close() })
	for _, tt := range []struct{ tool, out, err string }{
		{"structured", `{"count":3,"names":["a","b"]}`, ""},
		{"both", "three", ""},
		{"failing", `{"reason":"quota"}`, `failing: {"reason":"quota"}`},
	} {
		out, err := s.call(context.Background(), tt.tool, nil)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if out != tt.out || got != tt.err {
			t.Errorf("%s = %q, %q; want %q, %q", tt.tool, out, got, tt.out, tt.err)
		}
	}
}
