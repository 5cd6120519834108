package serve

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/host/capenv"
	"github.com/planc/planc/host/session"
	"github.com/planc/planc/internal/sessionfmt"
	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/parser"
)

func init() { testkit.ServeMCPIfAsked() }

// mcpManifest is a capsule granting notes, plan.submit and the test MCP
// server (testkit.ServeMCPIfAsked: echo takes {"text": string, "times":
// integer}).
func mcpManifest(t *testing.T) string {
	return `{"name": "local/m", "capabilities": {"plan": {"submit": true}},
  "tools": {"builtin": ["notes"], "mcp": {"t": {"command": ` + testkit.JSONList(testkit.MCPServerCommand(t, "serve")) + `}}}}`
}

// TestCheckPlanEqualsCheck: check-plan holds a plan to the built-in tools'
// input schemas and to the MCP servers' tools and their inputSchemas, as
// planc check does: its findings are the first lines of planc check's,
// for the same manifest and the same plan text.
func TestCheckPlanEqualsCheck(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "capsule.json", mcpManifest(t))
	m, ds := parser.ParseManifest([]byte(mcpManifest(t)), parser.DefaultLimits())
	if m == nil || len(ds) > 0 {
		t.Fatal(ds)
	}
	f := connect(t, Config{Env: capenv.New(m, capenv.Path("capsule.json"), capenv.WorkDir(dir)), WorkDir: dir})
	const plan = `{"id": "c", "steps": [
		{"id": "a", "tool": "echo", "input": {"txt": "x"}},
		{"id": "b", "tool": "notes", "input": {"body": 3}},
		{"id": "d", "tool": "echoo", "input": {}},
		{"id": "e", "tool": "write-file", "input": {"path": "x", "content": "y"}}]}`
	r := f.call(t, context.Background(), CheckPlan, plan, nil)
	ts := texts(r)
	if r.IsError || len(ts) != 1 {
		t.Fatalf("isError %v, texts %q", r.IsError, ts)
	}
	_, found, _ := strings.Cut(ts[0], "one member per line):\n")
	got := strings.Split(found, "\n")

	testkit.WriteFiles(t, dir, PlanFile, string(planText([]byte(plan))))
	cmd := exec.Command(testkit.PlancBinary(t), "check", "--capsule", "capsule.json", PlanFile)
	cmd.Dir = dir
	out, _ := cmd.Output()
	var want []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, PlanFile+":") {
			want = append(want, l)
		}
	}
	if len(want) < 5 {
		t.Fatalf("planc check found too little:\n%s", out)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("check-plan (-planc check +check-plan):\n%s", d)
	}
	for _, code := range []string{"[tool-input]", "[unknown-tool]"} {
		if !strings.Contains(found, code) {
			t.Errorf("no %s finding:\n%s", code, found)
		}
	}
}

// TestSubmitRefusedByMCPTools: a plan naming a tool that no MCP server
// offers, which only the servers started for the run can tell, is refused
// and leaves nothing: no session for the connection's first plan, no plan
// number and no trace line in the connection's session later.
func TestSubmitRefusedByMCPTools(t *testing.T) {
	testkit.NeedScope(t)
	plancBinary(t)
	m, ds := parser.ParseManifest([]byte(mcpManifest(t)), parser.DefaultLimits())
	if m == nil || len(ds) > 0 {
		t.Fatal(ds)
	}
	f := connect(t, Config{Env: capenv.New(m, capenv.Path("capsule.json"))})
	const unknown = `{"id": "u", "steps": [{"id": "a", "tool": "zzz", "input": {}}]}`
	const good = `{"id": "g", "steps": [{"id": "a", "tool": "echo", "input": {"text": "hi"}}]}`
	refused := func(when string) {
		t.Helper()
		r := f.call(t, context.Background(), SubmitPlan, unknown, nil)
		if ts := texts(r); !r.IsError || len(ts) != 1 || !strings.Contains(ts[0], `plan:6:15: error: tool "zzz" is not among the tools of capsule.json, which has "args", "crash", "echo", `) {
			t.Errorf("%s: isError %v, texts %q", when, r.IsError, ts)
		}
	}
	refused("first plan")
	if _, err := os.Stat(filepath.Join(f.dir, ".planc")); !os.IsNotExist(err) {
		t.Fatalf("the refused first plan left .planc behind (%v)", err)
	}
	taskOf := func() string {
		t.Helper()
		r := f.call(t, context.Background(), SubmitPlan, good, nil)
		if r.IsError {
			t.Fatalf("the good plan: %q", texts(r))
		}
		id, _ := r.Meta["task_id"].(string)
		return id
	}
	if id := taskOf(); id != "plan-1" {
		t.Errorf("the first plan that ran is %s, want plan-1", id)
	}
	refused("in the session")
	if id := taskOf(); id != "plan-2" {
		t.Errorf("the plan after the refused one is %s, want plan-2", id)
	}
	sessions, _ := filepath.Glob(filepath.Join(f.dir, session.DefaultSessionsDir, "*"))
	if len(sessions) != 1 {
		t.Fatalf("sessions %v, want one", sessions)
	}
	starts := 0
	for _, l := range testkit.TraceLines(t, filepath.Join(sessions[0], sessionfmt.TraceFile)) {
		if l["event"] == "session_start" {
			starts++
		}
	}
	if starts != 2 {
		t.Errorf("%d session_start lines, want 2 (one per plan that ran)", starts)
	}
}
