package parser

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/ast"
)

// envManifest sets variables for shell steps and for an MCP server.
const envManifest = `{
  "name": "local/env",
  "capabilities": {"shell": {"allow": ["env"], "env": {"MY_API_KEY": "${MY_API_KEY}", "RUST_LOG": "debug", "URL": "https://${HOST}:$$8${PORT}$x", "GONE": null}}},
  "tools": {"mcp": {"gh": {"command": ["gh-mcp"], "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}}, "plain": {"command": ["x"], "env": {}}}}
}`

func TestParseManifestEnv(t *testing.T) {
	m, ds := ParseManifest([]byte(envManifest), DefaultLimits())
	if len(ds) != 0 {
		t.Fatalf("diagnostics: %v", ds)
	}
	wantShell := []ast.EnvVar{
		{Name: "MY_API_KEY", Value: "${MY_API_KEY}"},
		{Name: "RUST_LOG", Value: "debug"},
		{Name: "URL", Value: "https://${HOST}:$$8${PORT}$x"},
	}
	if d := cmp.Diff(wantShell, m.Capabilities.ShellEnv, ignoreSpans); d != "" {
		t.Errorf("capabilities.shell.env (-want +got):\n%s", d)
	}
	if !m.Capabilities.ShellEnvSpan.IsValid() || m.Capabilities.ShellEnv[0].NameSpan.Start.Line != 3 {
		t.Errorf("spans: %+v", m.Capabilities.ShellEnv[0])
	}
	wantMCP := []ast.MCPServer{
		{Name: "gh", Command: []string{"gh-mcp"}, Env: []ast.EnvVar{{Name: "GITHUB_TOKEN", Value: "${GITHUB_TOKEN}"}}},
		{Name: "plain", Command: []string{"x"}},
	}
	if d := cmp.Diff(wantMCP, m.Tools.MCP, ignoreSpans); d != "" {
		t.Errorf("tools.mcp (-want +got):\n%s", d)
	}
	if !m.Tools.MCP[1].EnvSpan.IsValid() {
		t.Error("an empty env has no span")
	}
}

// envRefusalCases are refused env sections, as diagLines formats them;
// TestParseManifestRefusals runs them.
var envRefusalCases = []struct {
	name string
	src  string
	want []string
}{
	{"env list", `{"name": "local/a", "capabilities": {"shell": {"env": ["A=1"]}}}`, []string{
		"1:55 manifest-wrong-type: capabilities.shell.env must be an object of variable names to values, not a list; write \"env\": {\"MY_API_KEY\": \"${MY_API_KEY}\", \"RUST_LOG\": \"debug\"}",
	}},
	{"env typo", `{"name": "local/a", "capabilities": {"shell": {"evn": {}}}}`, []string{
		"1:48 manifest-unknown-field: unknown field \"evn\" in capabilities.shell; did you mean \"env\"? [env]",
	}},
	{"env misplaced", `{"name": "local/a", "capabilities": {"env": {}}}`, []string{
		"1:38 manifest-unknown-field: unknown field \"env\" in capabilities; it belongs in capabilities.shell, move it there",
	}},
	{"env names", `{"name": "local/a", "capabilities": {"shell": {"env": {"MY-KEY": "1", "9X": "1", "": "1", "é": "1"}}}}`, []string{
		"1:56 manifest-bad-value: capabilities.shell.env has the variable \"MY-KEY\", whose name is not a variable name; write it as \"MY_KEY\" [MY_KEY]",
		"1:71 manifest-bad-value: capabilities.shell.env has the variable \"9X\", whose name is not a variable name; write it as \"_9X\" [_9X]",
		"1:82 manifest-bad-value: capabilities.shell.env has the variable \"\", whose name is not a variable name; write letters, digits and \"_\", not starting with a digit",
		"1:91 manifest-bad-value: capabilities.shell.env has the variable \"é\", whose name is not a variable name; write letters, digits and \"_\", not starting with a digit",
	}},
	{"env values", `{"name": "local/a", "capabilities": {"shell": {"env": {"A": 1, "B": true, "C": ["x"], "D": "${X", "E": "${X:-y}", "F": "${}", "G": "a\u0000b"}}}}`, []string{
		"1:61 manifest-wrong-type: capabilities.shell.env.A must be a string, not a number; write it in quotes, as in \"1\"",
		"1:69 manifest-wrong-type: capabilities.shell.env.B must be a string, not a boolean; write it in quotes, as in \"true\"",
		"1:80 manifest-wrong-type: capabilities.shell.env.C must be a string, not a list; write \"${C}\" to pass planc's own C, or a value in quotes",
		"1:92 manifest-bad-value: capabilities.shell.env.D: \"${X\" has a \"${\" that no \"}\" closes; write ${NAME} for planc's own variable NAME, or $$ for a \"$\"",
		"1:104 manifest-bad-value: capabilities.shell.env.E: \"${X:-y}\" is not a reference to a variable; write ${NAME} for planc's own variable NAME, or $$ for a \"$\"",
		"1:120 manifest-bad-value: capabilities.shell.env.F: \"${}\" is not a reference to a variable; write ${NAME} for planc's own variable NAME, or $$ for a \"$\"",
		"1:132 manifest-bad-value: capabilities.shell.env.G holds a NUL byte, which no environment can hold; remove it",
	}},
	{"mcp env", `{"name": "local/a", "tools": {"mcp": {"gh": {"command": ["x"], "env": "GITHUB_TOKEN"}, "b": {"command": ["x"], "evn": {}}}}}`, []string{
		"1:71 manifest-wrong-type: tools.mcp.gh.env must be an object of variable names to values, not a string; write \"env\": {\"MY_API_KEY\": \"${MY_API_KEY}\", \"RUST_LOG\": \"debug\"}",
		"1:112 manifest-unknown-field: unknown field \"evn\" in tools.mcp.b; did you mean \"env\"? [env]",
	}},
}
