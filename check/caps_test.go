package check

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/parser"
)

func at(ns ...string) []ast.NameAt {
	out := make([]ast.NameAt, len(ns))
	for i, n := range ns {
		out[i] = ast.NameAt{Name: n}
	}
	return out
}

func TestCapabilitiesOf(t *testing.T) {
	tests := []struct {
		name string
		m    *ast.Manifest
		want *Capabilities
	}{
		{"no manifest", nil, nil},
		{"empty manifest", &ast.Manifest{Name: "local/a"}, &Capabilities{Tools: []string{}, ShellAllow: []string{}, SpawnAllow: []string{}}},
		{
			"full",
			&ast.Manifest{
				Name: "local/planner",
				Capabilities: ast.Capabilities{
					PlanSubmit: true,
					ShellAllow: at("bash", "go", "cargo", "go"),
					SpawnAllow: at("local/worker", "team/worker", "local/worker"),
					ReadOnly:   at("src"),
				},
				Tools: ast.Tools{
					Builtin: at("write-file", "repo-files", "notes", "read-file", "notes"),
					MCP:     []ast.MCPServer{{Name: "fs", Command: []string{"npx", "server"}}},
				},
			},
			&Capabilities{
				Tools:        []string{"notes", "read-file", "repo-files", "write-file"},
				ToolsPending: true,
				ShellAllow:   []string{"bash", "go", "cargo"},
				SpawnAllow:   []string{"local/worker", "team/worker"},
			},
		},
		{
			"mcp only",
			&ast.Manifest{Name: "local/a", Tools: ast.Tools{MCP: []ast.MCPServer{{Name: "fs", Command: []string{"x"}}}}},
			&Capabilities{Tools: []string{}, ToolsPending: true, ShellAllow: []string{}, SpawnAllow: []string{}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, CapabilitiesOf(tc.m)); d != "" {
				t.Errorf("capabilities (-want +got):\n%s", d)
			}
		})
	}
}

func TestCapabilitiesOfLeavesManifestAlone(t *testing.T) {
	m := &ast.Manifest{Capabilities: ast.Capabilities{ShellAllow: at("go", "go", "bash")}, Tools: ast.Tools{Builtin: at("notes", "notes")}}
	CapabilitiesOf(m)
	if d := cmp.Diff(at("go", "go", "bash"), m.Capabilities.ShellAllow); d != "" {
		t.Errorf("manifest changed (-want +got):\n%s", d)
	}
}

func TestBuiltinTools(t *testing.T) {
	got := BuiltinTools()
	want := []string{"compose", "notes", "read-file", "repo-files", "write-file"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("BuiltinTools (-want +got):\n%s", d)
	}
	if !slices.IsSorted(got) {
		t.Errorf("BuiltinTools is not sorted: %q", got)
	}
	got[0] = "changed"
	if BuiltinTools()[0] != "compose" {
		t.Errorf("BuiltinTools shares its slice with callers")
	}
	if slices.Contains(got, SubmitPlan) {
		t.Errorf("BuiltinTools lists %q", SubmitPlan)
	}
}

// TestCapabilityFixes: every capability refusal ends with its fix, naming
// the manifest (its path, the embedded default capsule with planc init, or
// none), the field and the entry to add; a did-you-mean comes before it.
func TestCapabilityFixes(t *testing.T) {
	plan, ds := parser.ParsePlan([]byte(`{"id": "p", "steps": [
		{"id": "a", "shell": "cargo test"},
		{"id": "b", "shell": "gp version"},
		{"id": "c", "tool": "write-file", "input": {"path": "x", "content": "y"}},
		{"id": "d", "tool": "fetch", "input": {}},
		{"id": "e", "tool": "note", "input": {"body": "x"}},
		{"id": "f", "capsule": "helper", "input": "x"},
		{"id": "g", "capsule": "twin", "input": "x"}]}`), parser.DefaultLimits())
	if plan == nil || len(ds) > 0 {
		t.Fatal(ds)
	}
	m := &ast.Manifest{Name: "local/a",
		Capabilities: ast.Capabilities{ShellAllow: at("go"), SpawnAllow: at("a/twin", "b/twin")},
		Tools:        ast.Tools{Builtin: at("notes")}}
	messages := func(caps *Capabilities) []string {
		var out []string
		for _, d := range Check(plan, caps) {
			out = append(out, d.Step+": "+d.Message)
		}
		return out
	}

	caps := CapabilitiesOf(m)
	caps.Manifest = ".planc/capsule.json"
	want := []string{
		`a: "cargo" is not in capabilities.shell.allow of .planc/capsule.json; add "cargo" to capabilities.shell.allow`,
		`b: "gp" is not in capabilities.shell.allow of .planc/capsule.json (did you mean "go"?); add "gp" to capabilities.shell.allow`,
		`c: tool "write-file" is not among the tools of .planc/capsule.json, which has "notes"; add "write-file" to tools.builtin`,
		`d: tool "fetch" is not among the tools of .planc/capsule.json, which has "notes"; add an MCP server offering "fetch" to tools.mcp`,
		`e: tool "note" is not among the tools of .planc/capsule.json, which has "notes" (did you mean "notes"?); add an MCP server offering "note" to tools.mcp`,
		`f: capsule "helper" matches no entry of capabilities.spawn.allow of .planc/capsule.json, so the roost will refuse to spawn it; add its namespaced name (e.g. "local/helper") to capabilities.spawn.allow`,
		`g: capsule "twin" matches "a/twin", "b/twin" in capabilities.spawn.allow of .planc/capsule.json, so the roost will refuse it as ambiguous; keep one of them in capabilities.spawn.allow, or rename one of those capsules`,
	}
	if d := cmp.Diff(want, messages(caps)); d != "" {
		t.Errorf("a manifest's path (-want +got):\n%s", d)
	}

	caps = CapabilitiesOf(m)
	caps.Embedded = true
	want = []string{
		`a: "cargo" is not in capabilities.shell.allow of the embedded default capsule; run planc init to make .planc/capsule.json, then add "cargo" to its capabilities.shell.allow`,
		`b: "gp" is not in capabilities.shell.allow of the embedded default capsule (did you mean "go"?); run planc init to make .planc/capsule.json, then add "gp" to its capabilities.shell.allow`,
		`c: tool "write-file" is not among the tools of the embedded default capsule, which has "notes"; run planc init to make .planc/capsule.json, then add "write-file" to its tools.builtin`,
		`d: tool "fetch" is not among the tools of the embedded default capsule, which has "notes"; run planc init to make .planc/capsule.json, then add an MCP server offering "fetch" to its tools.mcp`,
		`e: tool "note" is not among the tools of the embedded default capsule, which has "notes" (did you mean "notes"?); run planc init to make .planc/capsule.json, then add an MCP server offering "note" to its tools.mcp`,
		`f: capsule "helper" matches no entry of capabilities.spawn.allow of the embedded default capsule, so the roost will refuse to spawn it; run planc init to make .planc/capsule.json, then add its namespaced name (e.g. "local/helper") to its capabilities.spawn.allow`,
		`g: capsule "twin" matches "a/twin", "b/twin" in capabilities.spawn.allow of the embedded default capsule, so the roost will refuse it as ambiguous; keep one of them in capabilities.spawn.allow, or rename one of those capsules`,
	}
	if d := cmp.Diff(want, messages(caps)); d != "" {
		t.Errorf("the embedded default (-want +got):\n%s", d)
	}

	// Unnamed, and carried through WithTools: the message names no file.
	caps = CapabilitiesOf(m).WithTools()
	if got := messages(caps)[0]; got != `a: "cargo" is not in capabilities.shell.allow; add "cargo" to capabilities.shell.allow` {
		t.Errorf("no manifest named: %s", got)
	}
	caps = CapabilitiesOf(m)
	caps.Manifest = "m.json"
	if got := caps.WithTools("x").WithSchemas(nil).Manifest; got != "m.json" {
		t.Errorf("WithTools and WithSchemas lost the manifest's name: %q", got)
	}
}
