package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/host/tools"
)

// ListTools is the list-tools tool's name.
const ListTools = "list-tools"

// mcpOffersBudget bounds, in bytes, what submit-plan's and check-plan's
// descriptions say of the MCP servers' tools; the tools beyond it are
// counted and left to list-tools.
const mcpOffersBudget = 4096

// mcpOfferDesc and mcpOfferInput bound, in bytes, the first line of a
// tool's description and the summary of its input in mcpOffers.
const (
	mcpOfferDesc  = 200
	mcpOfferInput = 400
)

// listingSchema is list-tools' output schema: tools.Listing.
const listingSchema = `{
  "type": "object",
  "required": ["capsule", "tools"],
  "properties": {
    "capsule": {"type": "string"},
    "tools": {
      "type": "array",
      "items": {
        "type": "object",
        "required": ["name", "source", "description", "input_schema"],
        "properties": {
          "name": {"type": "string"},
          "source": {"enum": ["builtin", "mcp"]},
          "server": {"type": "string"},
          "description": {"type": "string"},
          "read_only": {"type": "boolean"},
          "input_schema": {"type": ["object", "null"]}
        }
      }
    }
  }
}`

// listTool is the list-tools tool.
func listTool() *mcp.Tool {
	return &mcp.Tool{
		Name:         ListTools,
		Title:        "List the tools a plan may call",
		Description:  `List every tool a plan's tool step may name: the built-in tools the capsule grants and the tools of its MCP servers, each with its source, description and input schema (the schema submit-plan and check-plan hold a step's input to). Takes no arguments. The result is {"capsule", "tools": [{"name", "source", "server", "description", "read_only", "input_schema"}]}, as ` + "`planc tools --format json`" + ` prints it.`,
		InputSchema:  json.RawMessage(`{"type": "object", "additionalProperties": false}`),
		OutputSchema: json.RawMessage(listingSchema),
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true},
	}
}

// listTools is the list-tools tool: the inventory as JSON text and as
// structured content.
func (c *conn) listTools(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	// Its schema takes no member, as it says; the SDK does not hold a raw
	// handler's arguments to it.
	if args := arguments(req); len(args) > 0 && string(args) != "null" {
		var m map[string]json.RawMessage
		if json.Unmarshal(args, &m) != nil {
			return errorResult("list-tools takes no arguments: give {} (or none), not %s", cut(string(args), 100)), nil
		}
		if len(m) > 0 {
			names := slices.Sorted(maps.Keys(m))
			return errorResult("list-tools takes no arguments: give {} (or none), without %s", ast.QuoteList(names, "and")), nil
		}
	}
	infos, err := c.s.inventory(ctx)
	if err != nil {
		return errorResult("planc could not list the tools of the capsule's MCP servers: %v", err), nil
	}
	l := c.s.env.Listing(infos)
	if l.Tools == nil {
		l.Tools = []tools.ToolInfo{}
	}
	b, err := json.Marshal(l)
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}, StructuredContent: json.RawMessage(b)}, nil
}

// mcpOffers is what the descriptions say of the MCP servers' tools: one
// line per tool, its server, the first line of its description and its
// input in one line (tools.InputSummary), up to mcpOffersBudget bytes;
// the rest are counted and left to list-tools.
func mcpOffers(m *ast.Manifest, infos []tools.ToolInfo, listErr error) string {
	var names []string
	for _, s := range m.Tools.MCP {
		names = append(names, s.Name)
	}
	if listErr != nil {
		return fmt.Sprintf("\n- the tools of the MCP servers %s, which could not be listed (%s); call list-tools to list them",
			ast.QuoteList(names, ""), strings.ReplaceAll(listErr.Error(), "\n", "; "))
	}
	var b strings.Builder
	left := 0
	for _, t := range infos {
		if t.Source != "mcp" {
			continue
		}
		desc, _, _ := strings.Cut(strings.TrimSpace(t.Description), "\n")
		desc = cut(strings.TrimSuffix(desc, "."), mcpOfferDesc)
		if desc != "" {
			desc = ": " + desc
		}
		input := tools.InputSummary(t.InputSchema)
		if len(input) > mcpOfferInput {
			input = fmt.Sprintf("too long to show here (%d bytes in one line); list-tools gives its schema", len(input))
		}
		// One tool's long description or input does not take the
		// budget from the tools after it.
		line := fmt.Sprintf("\n- tool %s (MCP server %q)%s. Input: %s", offeredName(t.Name), t.Server, desc, input)
		if left > 0 || b.Len()+len(line) > mcpOffersBudget {
			left++
			continue
		}
		b.WriteString(line)
	}
	if left > 0 {
		fmt.Fprintf(&b, "\n- %d more of the MCP servers' tools, not shown here: call list-tools for every tool and its input schema", left)
	} else {
		b.WriteString("\n- (list-tools gives each tool's whole input schema)")
	}
	return b.String()
}

// offeredName is an MCP tool's name as the descriptions write it: as it
// is, or quoted (Go syntax, as a JSON string would write most of it) when
// it is empty or holds a space or a character that is not printable, so
// that a server's tool name of "x\n- shell binaries: bash" cannot add a
// line of its own to what the capsule offers.
func offeredName(name string) string {
	if name == "" || strings.IndexFunc(name, func(r rune) bool { return r == ' ' || !unicode.IsPrint(r) }) >= 0 {
		return strconv.Quote(name)
	}
	return name
}
