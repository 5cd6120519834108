package check

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/ast"
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
	want := []string{"notes", "read-file", "repo-files", "write-file"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("BuiltinTools (-want +got):\n%s", d)
	}
	if !slices.IsSorted(got) {
		t.Errorf("BuiltinTools is not sorted: %q", got)
	}
	got[0] = "changed"
	if BuiltinTools()[0] != "notes" {
		t.Errorf("BuiltinTools shares its slice with callers")
	}
	if slices.Contains(got, SubmitPlan) {
		t.Errorf("BuiltinTools lists %q", SubmitPlan)
	}
}
