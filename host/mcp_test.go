package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planc/planc/host/capenv"
	"github.com/planc/planc/host/protect"
	"github.com/planc/planc/host/sandbox"
	"github.com/planc/planc/host/session"
	"github.com/planc/planc/host/tools"
	"github.com/planc/planc/internal/sessionfmt"
	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/ir"
	"github.com/planc/planc/vm"
)

func init() { testkit.ServeMCPIfAsked() }

// mcpManifest is a manifest with notes and the test binary's MCP server.
func mcpManifest(t *testing.T) string {
	cmd := testkit.JSONList(testkit.MCPServerCommand(t, "serve"))
	return `{"name": "local/m", "capabilities": {"plan": {"submit": true}}, "tools": {"builtin": ["notes"], "mcp": {"t": {"command": ` + cmd + `}}}}`
}

// TestRunMCP runs plans with an MCP server through Run, with a fake
// scope (the servers then get a process group each).
func TestRunMCP(t *testing.T) {
	dir := t.TempDir()
	m := manifest(t, mcpManifest(t))
	run := func(plan string) (*Result, error) {
		return Run(context.Background(), Config{WorkDir: dir, Env: capenv.New(m), Plan: checked(t, m, plan),
			probe: func() error { return nil },
			open:  func(string) (shellScope, error) { return newFakeScope(), nil }})
	}
	// check.Load leaves unknown-tool pending until the servers list their
	// tools: Run checks the plan again then.
	_, err := run(`{"id": "p", "steps": [{"id": "a", "tool": "ehco", "input": {"text": "x"}}]}`)
	var re *RefusedError
	if !errors.As(err, &re) || len(re.Diagnostics) != 1 || re.Diagnostics[0].Code != "unknown-tool" || !strings.Contains(re.Diagnostics[0].Message, `did you mean "echo"?`) {
		t.Errorf("unknown tool: %v", err)
	}
	// The server's inputSchema, learnt when it starts, holds the input.
	_, err = run(`{"id": "p", "steps": [{"id": "a", "tool": "echo", "input": {"txt": "x"}}]}`)
	if !errors.As(err, &re) || len(re.Diagnostics) != 2 || re.Diagnostics[1].Code != "tool-input" || !strings.Contains(re.Diagnostics[1].Message, `unknown input field "txt"; did you mean "text"?`) {
		t.Errorf("tool input: %v", err)
	}
	res, err := run(`{"id": "p", "steps": [
		{"id": "a", "tool": "echo", "input": {"text": "x", "times": 2}},
		{"id": "b", "tool": "crash", "depends_on": ["a"], "on_error": "continue"},
		{"id": "c", "tool": "echo", "depends_on": ["b"], "on_error": "continue", "input": {"text": "y"}},
		{"id": "n", "tool": "notes", "depends_on": ["c"], "input": {"body": "$a.output"}}]}`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range res.Report.Steps {
		e := ""
		if s.Error != nil {
			e = *s.Error
		}
		got = append(got, fmt.Sprintf("%s %s %s", s.StepID, s.Status, e))
	}
	exited := `MCP server "t" exited: exit status 3; its standard error ends: "crashing as asked"`
	want := []string{"a success ", "b failed " + exited, "c failed " + exited, "n success "}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("steps:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if b, _ := os.ReadFile(filepath.Join(res.Session.Dir, sessionfmt.NotesFile)); string(b) != "x\nx\n" {
		t.Errorf("notes.md %q", b)
	}
}

// TestRefuseMCP: an MCP tool without readOnlyHint is refused a path
// under a read_only path, with its trace line; one with it, or a path
// elsewhere, is not.
func TestRefuseMCP(t *testing.T) {
	dir := t.TempDir()
	m := manifest(t, mcpManifest(t))
	ms, err := tools.StartServers(t.Context(), m, tools.Launch{Dir: dir, ManifestDir: dir, Start: sandbox.StartProcess, Timeout: tools.MCPStartTimeout})
	if err != nil {
		t.Fatal(err)
	}
	defer ms.Close()
	checker, err := protect.New(protect.Config{ReadOnly: []string{"src"}, BaseDir: dir, WorkDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := session.OpenTrace(filepath.Join(dir, sessionfmt.TraceFile), "test")
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	h := &runHost{task: &session.Task{Trace: tr}, refusals: checker, tools: &tools.Inventory{Builtins: &tools.Builtins{WorkDir: dir}, Servers: ms}}
	refuse := func(tool, input string) error {
		step := &ir.Step{ID: "s", Kind: ir.KindTool, Target: tool}
		return h.Refuse(context.Background(), vm.Call{PlanID: "p", Step: step, Input: json.RawMessage(input)})
	}
	if err := refuse("args", `{"path": "src/a.go"}`); err == nil || !strings.Contains(err.Error(), `input "path" of tool args`) {
		t.Errorf("args under read_only: %v", err)
	}
	if err := refuse("args", `{"destination": "src"}`); err == nil {
		t.Errorf("args with destination under read_only: not refused")
	}
	for _, c := range [][2]string{{"look", `{"path": "src/a.go"}`}, {"args", `{"path": "out/a.go"}`}} {
		if err := refuse(c[0], c[1]); err != nil {
			t.Errorf("%s %s: %v", c[0], c[1], err)
		}
	}
	tr.Close()
	if got := traceEvents(t, filepath.Join(dir, sessionfmt.TraceFile)); strings.Join(got, " ") != "protected_path_denied protected_path_denied" {
		t.Errorf("trace %v", got)
	}
}
