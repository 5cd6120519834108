package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/planc/planc/host/protect"
	"github.com/planc/planc/ir"
	"github.com/planc/planc/vm"
)

// memServer connects an in-memory MCP server with the test tools (see
// addTestTools) and returns it as a run's server called name.
func memServer(t *testing.T, name string, tools ...string) *mcpServer {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "mem", Version: "1"}, nil)
	addTestTools(srv, tools...)
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

// addTestTools adds the named test tools to srv (all when none is named):
// echo (text times times, each its own content), mixed (an image and a
// text), fail (isError), broken (a protocol error), args (returns its
// arguments as JSON), look (readOnlyHint) and nothing (no content).
func addTestTools(srv *mcp.Server, names ...string) {
	want := func(n string) bool {
		if len(names) == 0 {
			return true
		}
		for _, x := range names {
			if x == n {
				return true
			}
		}
		return false
	}
	type echoIn struct {
		Text  string `json:"text"`
		Times int    `json:"times,omitempty"`
	}
	if want("echo") {
		mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			res := &mcp.CallToolResult{}
			for range max(in.Times, 1) {
				res.Content = append(res.Content, &mcp.TextContent{Text: in.Text})
			}
			return res, nil, nil
		})
	}
	if want("mixed") {
		mcp.AddTool(srv, &mcp.Tool{Name: "mixed"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: []byte{1}, MIMEType: "image/png"}, &mcp.TextContent{Text: "only this"}}}, nil, nil
		})
	}
	if want("fail") {
		mcp.AddTool(srv, &mcp.Tool{Name: "fail"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return nil, nil, errors.New("the disk is on fire")
		})
	}
	if want("nothing") {
		mcp.AddTool(srv, &mcp.Tool{Name: "nothing"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{IsError: true}, nil, nil
		})
	}
	if want("broken") {
		srv.AddTool(&mcp.Tool{Name: "broken", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("no such thing here")
		})
	}
	if want("args") {
		srv.AddTool(&mcp.Tool{Name: "args", InputSchema: map[string]any{"type": "object"}}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}}}, nil
		})
	}
	if want("look") {
		mcp.AddTool(srv, &mcp.Tool{Name: "look", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, func(context.Context, *mcp.CallToolRequest, struct {
			Path string `json:"path"`
		}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "looked"}}}, nil, nil
		})
	}
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
	ms := &mcpServers{servers: []*mcpServer{a, b}}
	err := ms.index([]string{"notes"})
	want := `tool "echo" is offered by two sources, MCP server "a" and MCP server "b"`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("two servers: %v; want %s…", err, want)
	}

	ms = &mcpServers{servers: []*mcpServer{a}}
	err = ms.index([]string{"echo", "notes"})
	want = `tool "echo" is offered by two sources, the built-in tools (tools.builtin) and MCP server "a"`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("a built-in: %v; want %s…", err, want)
	}

	sp := memServer(t, "sp")
	sp.tools = append(sp.tools, &mcp.Tool{Name: "submit-plan"})
	ms = &mcpServers{servers: []*mcpServer{sp}}
	if err := ms.index(nil); err == nil || !strings.Contains(err.Error(), `the runtime's submit-plan tool and MCP server "sp"`) {
		t.Errorf("submit-plan: %v", err)
	}

	// A built-in that the manifest does not grant is no source: the
	// server's tool of that name is the one the plan calls.
	ms = &mcpServers{servers: []*mcpServer{a, memServer(t, "c", "args")}}
	if err := ms.index([]string{"notes"}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(ms.names(), " "); got != "args echo look" {
		t.Errorf("names %q", got)
	}
	if ms.tools["look"].server != a || !ms.tools["look"].readOnly || ms.tools["echo"].readOnly {
		t.Errorf("tools %+v", ms.tools)
	}
	var none *mcpServers
	if _, ok := none.tool("echo"); ok || none.names() != nil || none.close() != nil {
		t.Error("a nil *mcpServers has tools")
	}
}

// TestMCPRefuse: an MCP tool without readOnlyHint is refused a path under
// a read_only path; one with it, or a path elsewhere, is not.
func TestMCPRefuse(t *testing.T) {
	dir := t.TempDir()
	ms := &mcpServers{servers: []*mcpServer{memServer(t, "m", "args", "look")}}
	if err := ms.index(nil); err != nil {
		t.Fatal(err)
	}
	checker, err := protect.New(protect.Config{ReadOnly: []string{"src"}, BaseDir: dir, WorkDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	tr := openTestTrace(t, dir)
	h := &runHost{mcp: ms, checker: checker, trace: tr, tools: &Builtins{WorkDir: dir}}
	refuse := func(tool, input string) error {
		step := &ir.Step{ID: "s", Kind: ir.KindTool, Target: tool}
		return h.Refuse(context.Background(), vm.Call{PlanID: "p", Step: step, Input: json.RawMessage(input)})
	}
	if err := refuse("args", `{"path": "src/a.go"}`); err == nil || !strings.Contains(err.Error(), `input "path" of tool args`) {
		t.Errorf("args under read_only: %v", err)
	}
	if err := refuse("args", `{"destination": "src"}`); err == nil {
		t.Errorf("args with destination under read_only: not refused")
	}
	for _, c := range [][2]string{{"look", `{"path": "src/a.go"}`}, {"args", `{"path": "out/a.go"}`}} {
		if err := refuse(c[0], c[1]); err != nil {
			t.Errorf("%s %s: %v", c[0], c[1], err)
		}
	}
	if got := h.toolInfo("write-file"); got != (protect.ToolInfo{Builtin: true}) {
		t.Errorf("toolInfo(write-file) = %+v", got)
	}
	if out, err := h.callTool(context.Background(), "look", json.RawMessage(`{"path": "src"}`)); out != "looked" || err != nil {
		t.Errorf("callTool(look) = %q, %v", out, err)
	}
	if _, err := h.callTool(context.Background(), "read-file", json.RawMessage(`{"path": "none"}`)); err == nil || !strings.HasPrefix(err.Error(), "read-file: ") {
		t.Errorf("callTool(read-file) = %v; want the built-in's error", err)
	}
}

// openTestTrace opens a trace in dir for a test.
func openTestTrace(t *testing.T, dir string) *Trace {
	t.Helper()
	tr, err := OpenTrace(fmt.Sprintf("%s/trace.jsonl", dir), "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	return tr
}
