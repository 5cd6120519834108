package check

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/parser"
)

func TestWithTools(t *testing.T) {
	m := &ast.Manifest{Name: "local/a", Tools: ast.Tools{Builtin: at("notes"), MCP: []ast.MCPServer{{Name: "fs", Command: []string{"x"}}}}}
	c := CapabilitiesOf(m)
	got := c.WithTools("read_file", "echo", "notes", "echo")
	want := &Capabilities{Tools: []string{"echo", "notes", "read_file"}, ShellAllow: []string{}, SpawnAllow: []string{}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("WithTools (-want +got):\n%s", d)
	}
	if !c.ToolsPending || len(c.Tools) != 1 {
		t.Errorf("WithTools changed its receiver: %+v", c)
	}
	var none *Capabilities
	if none.WithTools("x") != nil {
		t.Error("nil.WithTools is not nil")
	}
}

// TestUnknownToolPending: while the MCP servers' tools are pending, a
// tool step naming any tool passes unknown-tool; once they are added, the
// rule knows them.
func TestUnknownToolPending(t *testing.T) {
	plan, ds := parser.ParsePlan([]byte(`{"id": "p", "steps": [{"id": "a", "tool": "echo"}, {"id": "b", "tool": "ecko"}]}`), parser.DefaultLimits())
	if plan == nil || len(ds) > 0 {
		t.Fatal(ds)
	}
	m := &ast.Manifest{Name: "local/a", Tools: ast.Tools{MCP: []ast.MCPServer{{Name: "demo", Command: []string{"x"}}}}}
	caps := CapabilitiesOf(m)
	if ds := Check(plan, caps); len(ds) > 0 {
		t.Errorf("pending: %v", ds)
	}
	ds = Check(plan, caps.WithTools("echo"))
	if len(ds) != 1 || ds[0].Code != "unknown-tool" || ds[0].Message != `tool "ecko" is not among the tools of the capsule, which has "echo" (did you mean "echo"?); add an MCP server offering "ecko" to tools.mcp` {
		t.Errorf("with the tools: %v", ds)
	}
}
