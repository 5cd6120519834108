// Command server is an MCP server over stdio for planc's golden tests of
// the tool-input rule. It offers the tools of tools.json, embedded, with
// their input schemas exactly as written there; each answers with the
// arguments it was called with. The golden tests hold plans to the same
// file's schemas, and one test starts this server to see that `planc
// check --capsule` learns them from tools/list.
package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

//go:embed tools.json
var toolsJSON []byte

// tool is one element of tools.json.
type tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("mcp-schemas: ")
	var tools []tool
	if err := json.Unmarshal(toolsJSON, &tools); err != nil {
		log.Fatal(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "planc-golden-schemas", Version: "0.1.0"}, nil)
	for _, t := range tools {
		s.AddTool(&mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema},
			func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}}}, nil
			})
	}
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
