package golden

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/check"
	"github.com/planc/planc/host/tools"
	"github.com/planc/planc/host/toolschema"
	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/parser"
)

// mcpDir holds the tool-input rule's MCP cases: a capsule whose MCP server
// (server/, a Go program) offers the tools of server/tools.json with their
// input schemas, and plans under err/ and ok/ checked against them. The
// schemas use required, additionalProperties false, enums, nested objects,
// lists, $ref (draft 2020-12 and draft-07), anyOf and oneOf.
const mcpDir = "testdata/mcp"

// mcpSchemas returns the tools of server/tools.json by name, each with its
// input schema.
func mcpSchemas(t *testing.T) map[string]json.RawMessage {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(mcpDir, "server", "tools.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tools []struct {
		Name        string          `json:"name"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	if err := json.Unmarshal(raw, &tools); err != nil {
		t.Fatal(err)
	}
	out := map[string]json.RawMessage{}
	for _, tl := range tools {
		out[tl.Name] = tl.InputSchema
	}
	return out
}

// mcpCaps returns the MCP capsule's capabilities with the tools of
// server/tools.json, as planc check --capsule has them once the server
// listed its tools (TestMCPServerSchemas holds the server to that).
// TestCheckOK and TestCheckErr check testdata/mcp's plans with them.
func mcpCaps(t *testing.T) *check.Capabilities {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(mcpDir, "capsule.json"))
	if err != nil {
		t.Fatal(err)
	}
	m, diags := parser.ParseManifest(src, parser.DefaultLimits())
	if len(diags) > 0 {
		t.Fatalf("MCP golden capsule: %v", diags)
	}
	schemas := mcpSchemas(t)
	return check.CapabilitiesOf(m).WithSchemas(toolschema.Builtin()).
		WithTools(slices.Sorted(maps.Keys(schemas))...).WithSchemas(schemas)
}

// TestMCPServerSchemas starts the MCP capsule's server the way planc check
// --capsule does (tools.ListMCPToolInputs) and finds the schemas of
// server/tools.json in what it lists; then planc check --capsule itself
// prints, for every MCP err plan, the lines of its .out file. Not with
// -short: it compiles the server and planc.
func TestMCPServerSchemas(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the MCP server is not started")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(mcpDir, "capsule.json"))
	if err != nil {
		t.Fatal(err)
	}
	m, _ := parser.ParseManifest(src, parser.DefaultLimits())
	ctx, cancel := context.WithTimeout(context.Background(), mcpListTimeout)
	defer cancel()
	listed, err := tools.ListMCPToolInputs(ctx, m, root, mcpDir, mcpListTimeout)
	if err != nil {
		t.Fatal(err)
	}
	want := mcpSchemas(t)
	if d := cmp.Diff(slices.Sorted(maps.Keys(want)), slices.Sorted(maps.Keys(listed))); d != "" {
		t.Fatalf("tools listed (-tools.json +server):\n%s", d)
	}
	for name, schema := range want {
		var a, b any
		if json.Unmarshal(schema, &a) != nil || json.Unmarshal(listed[name], &b) != nil {
			t.Fatalf("%s: schema is not JSON: %s", name, listed[name])
		}
		if d := cmp.Diff(a, b); d != "" {
			t.Errorf("%s: inputSchema (-tools.json +listed):\n%s", name, d)
		}
	}

	planc := testkit.PlancBinary(t)
	files, _ := filepath.Glob(filepath.Join(mcpDir, "err", "*.json"))
	for _, f := range files {
		rel := filepath.ToSlash(filepath.Join("golden", f))
		cmd := exec.Command(planc, "check", "--capsule", "golden/testdata/mcp/capsule.json", rel)
		cmd.Dir = root
		out, err := cmd.Output()
		if code := cmd.ProcessState.ExitCode(); code != 1 {
			t.Errorf("%s: exit %d (%v), want 1", rel, code, err)
		}
		golden, err := os.ReadFile(strings.TrimSuffix(f, ".json") + ".out")
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(out), "\n")
		for _, l := range strings.Split(strings.TrimSpace(string(golden)), "\n") {
			if w := filepath.Dir(rel) + "/" + l; !slices.Contains(lines, w) {
				t.Errorf("planc check does not print %q; it printed:\n%s", w, out)
			}
		}
	}
}
