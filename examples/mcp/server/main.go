// Command server is a small MCP server over stdio, for the MCP example
// (examples/mcp, docs/mcp.md) and for planc's own tests of MCP tools. It
// offers five tools:
//
//   - echo {"text", "times"}: the text, times times (default once), each a
//     text content of its own, which planc joins with newlines
//   - read {"path"}: the file's content; annotated readOnlyHint, so the
//     read_only check lets it read under a read-only path
//   - write {"path", "content"}: writes the file; not annotated, so the
//     read_only check refuses it under a read-only path
//   - fail {"message"}: a result with isError and the message
//   - crash {"code"}: the server exits with code in the middle of the call
//
// Paths are relative to the server's working directory, which is planc's.
//
//	usage: server [-rename OLD=NEW]...
//
// -rename offers tool OLD under the name NEW (to make two sources offer
// one name, in tests).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// renames is the -rename flag: tool names to offer under other names.
type renames map[string]string

func (r renames) String() string { return fmt.Sprint(map[string]string(r)) }

func (r renames) Set(s string) error {
	old, name, ok := strings.Cut(s, "=")
	if !ok || old == "" || name == "" {
		return fmt.Errorf("want OLD=NEW, not %q", s)
	}
	r[old] = name
	return nil
}

func main() {
	rn := renames{}
	flag.Var(rn, "rename", "offer tool `OLD=NEW` under the name NEW (repeatable)")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("mcp-demo: ")

	s := mcp.NewServer(&mcp.Implementation{Name: "planc-mcp-demo", Version: "0.1.0"}, nil)
	name := func(n string) string {
		if to, ok := rn[n]; ok {
			return to
		}
		return n
	}
	mcp.AddTool(s, &mcp.Tool{Name: name("echo"), Description: "returns the text, times times, one content each"}, echo)
	mcp.AddTool(s, &mcp.Tool{Name: name("read"), Description: "returns a file's content", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, read)
	mcp.AddTool(s, &mcp.Tool{Name: name("write"), Description: "writes a file"}, write)
	mcp.AddTool(s, &mcp.Tool{Name: name("fail"), Description: "fails with the message"}, fail)
	mcp.AddTool(s, &mcp.Tool{Name: name("crash"), Description: "makes the server exit with the code, mid-call"}, crash)
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}

// echoIn is echo's input.
type echoIn struct {
	Text  string `json:"text" jsonschema:"the text to return"`
	Times int    `json:"times,omitempty" jsonschema:"how many times (default 1)"`
}

func echo(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
	res := &mcp.CallToolResult{}
	for range max(in.Times, 1) {
		res.Content = append(res.Content, &mcp.TextContent{Text: in.Text})
	}
	return res, nil, nil
}

// pathIn is read's input.
type pathIn struct {
	Path string `json:"path" jsonschema:"the file, relative to the working directory unless absolute"`
}

func read(_ context.Context, _ *mcp.CallToolRequest, in pathIn) (*mcp.CallToolResult, any, error) {
	b, err := os.ReadFile(in.Path)
	if err != nil {
		return nil, nil, err // a result with isError
	}
	return text(string(b)), nil, nil
}

// writeIn is write's input.
type writeIn struct {
	Path    string `json:"path" jsonschema:"the file, relative to the working directory unless absolute"`
	Content string `json:"content" jsonschema:"what to write"`
}

func write(_ context.Context, _ *mcp.CallToolRequest, in writeIn) (*mcp.CallToolResult, any, error) {
	if err := os.WriteFile(in.Path, []byte(in.Content), 0o644); err != nil {
		return nil, nil, err
	}
	return text(fmt.Sprintf("wrote %d bytes to %s", len(in.Content), in.Path)), nil, nil
}

// failIn is fail's input.
type failIn struct {
	Message string `json:"message" jsonschema:"the error message"`
}

func fail(_ context.Context, _ *mcp.CallToolRequest, in failIn) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: in.Message}}}, nil, nil
}

// crashIn is crash's input.
type crashIn struct {
	Code int `json:"code,omitempty" jsonschema:"the exit status (default 3)"`
}

func crash(_ context.Context, _ *mcp.CallToolRequest, in crashIn) (*mcp.CallToolResult, any, error) {
	code := in.Code
	if code == 0 {
		code = 3
	}
	log.Printf("crashing as asked, with exit status %d", code)
	os.Exit(code)
	return nil, nil, nil
}

// text is a result with one text content.
func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}
