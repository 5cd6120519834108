package serve

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/host/capenv"
	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/parser"
)

// TestListToolsMCP: with an MCP server in the manifest, list-tools
// returns what `planc tools --format json` prints for the same manifest,
// and submit-plan's and check-plan's descriptions name every tool of the
// server with its input.
func TestListToolsMCP(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "capsule.json", mcpManifest(t))
	m, ds := parser.ParseManifest([]byte(mcpManifest(t)), parser.DefaultLimits())
	if m == nil || len(ds) > 0 {
		t.Fatal(ds)
	}
	f := connect(t, Config{Env: capenv.New(m, capenv.Path("capsule.json"), capenv.WorkDir(dir)), WorkDir: dir})
	r := f.call(t, context.Background(), ListTools, `{}`, nil)
	if r.IsError {
		t.Fatalf("list-tools: %q", texts(r))
	}
	cmd := exec.Command(testkit.PlancBinary(t), "tools", "--capsule", "capsule.json", "--format", "json")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("planc tools: %v", err)
	}
	if !jsonEqual(t, []byte(texts(r)[0]), out) {
		t.Errorf("list-tools:\n%s\nplanc tools --format json:\n%s", texts(r)[0], out)
	}
	var l struct {
		Tools []struct{ Name, Source string } `json:"tools"`
	}
	if err := json.Unmarshal(out, &l); err != nil {
		t.Fatal(err)
	}
	res, err := f.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	described := 0
	for _, tool := range res.Tools {
		if tool.Name != SubmitPlan && tool.Name != CheckPlan {
			continue
		}
		described++
		mcpTools := 0
		for _, it := range l.Tools {
			if it.Source != "mcp" {
				continue
			}
			mcpTools++
			if !strings.Contains(tool.Description, "\n- tool "+it.Name+` (MCP server "t")`) {
				t.Errorf("%s's description does not name MCP tool %s", tool.Name, it.Name)
			}
		}
		if mcpTools < 3 || !strings.Contains(tool.Description, `- tool echo (MCP server "t"). Input: {"text": string, "times"?: integer}`) {
			t.Errorf("%s's description lacks the MCP tools' inputs:\n%s", tool.Name, tool.Description)
		}
	}
	if described != 2 {
		t.Errorf("%d of submit-plan and check-plan described", described)
	}
}

// TestCheckAndSubmitAgree: check-plan and submit-plan check a plan with
// the same capabilities before anything runs, MCP tools' input schemas
// included: for each plan, submit-plan refuses it with exactly the
// findings check-plan lists.
func TestCheckAndSubmitAgree(t *testing.T) {
	dir := t.TempDir()
	m, ds := parser.ParseManifest([]byte(mcpManifest(t)), parser.DefaultLimits())
	if m == nil || len(ds) > 0 {
		t.Fatal(ds)
	}
	f := connect(t, Config{Env: capenv.New(m, capenv.Path("capsule.json"), capenv.WorkDir(dir)), WorkDir: dir})
	plans := []string{
		// An MCP tool's input its schema refuses, beside built-in mistakes.
		`{"id": "c", "steps": [
			{"id": "a", "tool": "echo", "input": {"txt": "x"}},
			{"id": "b", "tool": "notes", "input": {"body": 3}},
			{"id": "d", "tool": "echoo", "input": {}},
			{"id": "e", "tool": "write-file", "input": {"path": "x", "content": "y"}}]}`,
		// Only an MCP tool's input is wrong.
		`{"id": "m", "steps": [{"id": "a", "tool": "echo", "input": {"text": 3}}]}`,
		// A warning and an error.
		`{"id": "w", "steps": [{"id": "a", "tool": "echo", "input": {"text": "see $b.output"}}, {"id": "b", "tool": "nope"}]}`,
	}
	for _, plan := range plans {
		c := f.call(t, context.Background(), CheckPlan, plan, nil)
		_, checked, ok := strings.Cut(texts(c)[0], "one member per line):\n")
		if !ok {
			t.Fatalf("check-plan found nothing: %q", texts(c))
		}
		s := f.call(t, context.Background(), SubmitPlan, plan, nil)
		if !s.IsError {
			t.Fatalf("submit-plan ran a plan check-plan refuses: %q", texts(s))
		}
		_, submitted, _ := strings.Cut(texts(s)[0], "one member per line):\n")
		if d := cmp.Diff(strings.Split(checked, "\n"), strings.Split(submitted, "\n")); d != "" {
			t.Errorf("plan %.40s… (-check-plan +submit-plan):\n%s", plan, d)
		}
	}
}
