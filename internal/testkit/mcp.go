package testkit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MCPServerArg, as a test binary's first argument, makes it an MCP server
// over stdio instead of running tests: `x.test mcp-test-server MODE`
// (ServeMCPIfAsked).
const MCPServerArg = "mcp-test-server"

// ServeMCPIfAsked makes the test binary an MCP server and exits when it
// was started as MCPServerCommand's command; otherwise it returns. Call
// it from the test package's init.
//
// MODE serve offers echo, args, look (readOnlyHint), wait, crash (exits 3
// mid-call, saying so on standard error) and spawn (starts `sleep 60` and
// returns its pid); exit says why on standard error and exits 4 at once;
// hang never answers.
func ServeMCPIfAsked() {
	if len(os.Args) > 2 && os.Args[1] == MCPServerArg {
		os.Exit(serveMCP(os.Args[2]))
	}
}

// MCPServerCommand is the command of this test binary as an MCP server in
// mode (ServeMCPIfAsked).
func MCPServerCommand(t testing.TB, mode string) []string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	return []string{exe, MCPServerArg, mode}
}

// serveMCP is the test binary as an MCP server in mode.
func serveMCP(mode string) int {
	switch mode {
	case "exit":
		fmt.Fprintln(os.Stderr, "cannot start: bad configuration")
		return 4
	case "hang":
		time.Sleep(time.Hour)
		return 0
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "planc-test", Version: "1"}, nil)
	AddMCPTools(srv, "echo", "args", "look", "wait")
	mcp.AddTool(srv, &mcp.Tool{Name: "crash"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		fmt.Fprintln(os.Stderr, "crashing as asked")
		os.Exit(3)
		return nil, nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "spawn"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		cmd := exec.Command("sleep", "60")
		if err := cmd.Start(); err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strconv.Itoa(cmd.Process.Pid)}}}, nil, nil
	})
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		return 1
	}
	return 0
}

// AddMCPTools adds the named test tools to srv (all when none is named):
// echo (text times times, each its own content), mixed (an image and a
// text), fail (isError), broken (a protocol error), args (returns its
// arguments as JSON), look (readOnlyHint), nothing (no content) and wait
// (returns the content of the file at its "path", relative to the
// server's working directory: a FIFO holds the call until it is written).
func AddMCPTools(srv *mcp.Server, names ...string) {
	want := func(n string) bool { return len(names) == 0 || slices.Contains(names, n) }
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
	if want("wait") {
		mcp.AddTool(srv, &mcp.Tool{Name: "wait"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
			Path string `json:"path"`
		}) (*mcp.CallToolResult, any, error) {
			b, err := os.ReadFile(in.Path)
			if err != nil {
				return nil, nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil, nil
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
