package capenv_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/check"
	"github.com/planc/planc/diag"
	"github.com/planc/planc/host/capenv"
	"github.com/planc/planc/host/toolschema"
	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/parser"
)

// TestNewCapabilities: every caller (planc check and run, serve, the
// redrive, a sub-capsule's entrypoint) checks with what New makes, so
// what the copies once left out is there for each: the built-in tools'
// input schemas (the redrive's copy lacked them), the manifest's name in
// the fixes, Embedded for the embedded default (the sub-capsule's copy
// lacked it) and the binary lookup (only two copies had it).
func TestNewCapabilities(t *testing.T) {
	m := testkit.Manifest(t, `{"name": "local/a", "capabilities": {"shell": {"allow": ["no-such-binary-planc"]}}, "tools": {"builtin": ["notes"]}}`)
	for _, tc := range []struct {
		env      *capenv.Env
		name     string
		path     string
		embedded bool
	}{
		{env: capenv.Default(), embedded: true},
		{env: capenv.New(m, capenv.Path("/p/capsule.json")), name: "/p/capsule.json", path: "/p/capsule.json"},
		{env: capenv.New(m, capenv.Path("/p/capsule.json"), capenv.Named("capsule.json")), name: "capsule.json", path: "/p/capsule.json"},
		{env: capenv.New(m, capenv.Stdin()), name: "the manifest on standard input"},
	} {
		caps := tc.env.Capabilities()
		if caps.Manifest != tc.name || caps.Embedded != tc.embedded || tc.env.Path() != tc.path || tc.env.Embedded() != tc.embedded {
			t.Errorf("%q: Manifest %q, Embedded %v, Path %q; want %q, %v, %q", tc.name, caps.Manifest, caps.Embedded, tc.env.Path(), tc.name, tc.embedded, tc.path)
		}
		for tool := range toolschema.Builtin() {
			if caps.ToolSchemas[tool] == nil {
				t.Errorf("%q: no input schema for built-in tool %q", tc.name, tool)
			}
		}
		if caps.Found == nil || caps.Found("no-such-binary-planc") {
			t.Errorf("%q: the binary lookup is missing or finds what is not there", tc.name)
		}
	}
	if got := capenv.Default().Manifest().Name; got != capenv.DefaultManifestName {
		t.Errorf("the default capsule is %q", got)
	}
}

// TestWithMCP: the MCP servers' tools join in one place; a plan loaded
// before they were known is checked again with them (Recheck), as a run
// and a redrive do once the servers start — with the tools of this
// environment, not those of another.
func TestWithMCP(t *testing.T) {
	m := testkit.Manifest(t, `{"name": "local/a", "tools": {"builtin": ["notes"], "mcp": {"s": {"command": ["srv"]}}}}`)
	env := capenv.New(m)
	if !env.HasMCP() || !env.Capabilities().ToolsPending || env.MCPTools() != nil {
		t.Fatalf("before WithMCP: HasMCP %v, pending %v, MCPTools %v", env.HasMCP(), env.Capabilities().ToolsPending, env.MCPTools())
	}
	plan, ds := env.Load([]byte(`{"id": "p", "steps": [{"id": "s", "tool": "look", "input": {"path": 1}}]}`))
	if plan == nil {
		t.Fatalf("refused while the MCP tools are pending: %v", ds)
	}
	schema := json.RawMessage(`{"type": "object", "properties": {"path": {"type": "string"}}}`)
	withLook := env.WithMCP(map[string]json.RawMessage{"look": schema})
	caps := withLook.Capabilities()
	if caps.ToolsPending || !slices.Contains(caps.Tools, "look") || string(caps.ToolSchemas["look"]) != string(schema) || caps.ToolSchemas["notes"] == nil {
		t.Errorf("after WithMCP: %+v", caps)
	}
	if !env.Capabilities().ToolsPending || env.MCPTools() != nil {
		t.Error("WithMCP changed the environment it was called on")
	}
	if got := withLook.MCPTools(); !slices.Equal(got, []string{"look"}) {
		t.Errorf("MCPTools = %v", got)
	}
	if p, ds := withLook.Recheck(plan); p != nil || !hasCode(ds, "tool-input") {
		t.Errorf("Recheck with look's schema: plan %v, %v; want tool-input", p != nil, ds)
	}
	if p, ds := env.WithMCP(map[string]json.RawMessage{"other": nil}).Recheck(plan); p != nil || !hasCode(ds, "unknown-tool") {
		t.Errorf("Recheck with other tools: plan %v, %v; want unknown-tool", p != nil, ds)
	}
}

func hasCode(ds []check.Diagnostic, code string) bool {
	return slices.ContainsFunc(ds, func(d check.Diagnostic) bool { return d.Code == code })
}

// TestCheckInput: the built-in tools hold their input to the schemas
// check's tool-input rule holds a step's input to.
func TestCheckInput(t *testing.T) {
	env := capenv.Default()
	if err := env.CheckInput("read-file", json.RawMessage(`{"path": "a"}`)); err != nil {
		t.Errorf("a good input: %v", err)
	}
	if err := env.CheckInput("read-file", json.RawMessage(`{"path": 1}`)); err == nil {
		t.Error("a number for a path: no error")
	}
	if err := env.CheckInput("no-such-tool", nil); err == nil || !strings.Contains(err.Error(), "no input schema") {
		t.Errorf("an unknown tool: %v", err)
	}
}

// TestFind: the nearest project capsule from a directory upward.
func TestFind(t *testing.T) {
	root := t.TempDir()
	deep := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(filepath.Join(root, ".planc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := capenv.Find(deep); got != "" && !strings.HasSuffix(got, capenv.ProjectFile) {
		t.Errorf("Find without a manifest = %q", got)
	}
	if err := os.WriteFile(filepath.Join(root, capenv.ProjectFile), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, want := capenv.Find(deep), filepath.Join("..", "..", capenv.ProjectFile); got != want {
		t.Errorf("Find = %q, want %q", got, want)
	}
}

// TestParseManifestTooLarge: a manifest over the size limit is refused
// with the size code, at its first byte.
func TestParseManifestTooLarge(t *testing.T) {
	big := make([]byte, parser.DefaultLimits().MaxBytes+1)
	m, ds := capenv.ParseManifest(&diag.File{Name: "big.json", Src: big})
	if m != nil || len(ds) != 1 || ds[0].Severity != ast.Error || !strings.Contains(ds[0].Message, "is this file a capsule manifest?") {
		t.Errorf("ParseManifest of %d bytes: %v, %v", len(big), m, ds)
	}
}
