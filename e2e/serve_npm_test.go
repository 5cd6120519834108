package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/internal/testkit"
)

// TestServeInspector: an MCP client no one here wrote, the MCP Inspector's
// command line (@modelcontextprotocol/inspector --cli, on the TypeScript
// SDK, which also holds results to the tools' output schemas), lists the
// tools of planc serve --mcp and runs a plan with submit-plan. It installs
// the inspector from the npm registry into a temporary directory; it skips
// when node, npm or the registry are not there, and with -short. It also
// runs the README's inspector command line as shown.
func TestServeInspector(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("installs an npm package; skipped with -short")
	}
	bin := plancBin(t)
	npmDir := testkit.NPMPackage(t, "@modelcontextprotocol/inspector")
	inspector := filepath.Join(npmDir, "node_modules", ".bin", "mcp-inspector")
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "in.txt", "hello")
	inspect := func(args ...string) map[string]any {
		t.Helper()
		// A guard against a hang, not a time limit: each call (a node
		// start-up, planc serve's and a plan) has its own, generous on a
		// busy machine.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, inspector, append([]string{"--cli", bin, "serve", "--mcp"}, args...)...)
		cmd.Dir = dir
		out, err := cmd.Output()
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		var res map[string]any
		if err != nil || json.Unmarshal(out, &res) != nil {
			t.Fatalf("inspector %v: %v\nstdout:\n%s\nstderr:\n%s", args, err, out, stderr)
		}
		return res
	}

	var names []string
	for _, tool := range inspect("--method", "tools/list")["tools"].([]any) {
		names = append(names, tool.(map[string]any)["name"].(string))
	}
	if !slices.Equal(names, []string{"check-plan", "list-tools", "resume-plan", "submit-plan"}) {
		t.Errorf("tools %v", names)
	}

	res := inspect("--method", "tools/call", "--tool-name", "submit-plan", "--tool-arg", "id=greet",
		`--tool-arg`, `steps=[{"id": "read", "tool": "read-file", "input": {"path": "in.txt"}}, {"id": "note", "tool": "notes", "depends_on": ["read"], "if": "$read.output == 'hello'", "input": {"body": "$read.output"}}]`)
	want := map[string]any{"plan_id": "greet", "completed": true, "canceled": false, "failed_step": nil, "steps": []any{
		map[string]any{"step_id": "read", "status": "success", "output": "hello", "error": nil},
		map[string]any{"step_id": "note", "status": "success", "output": "appended 6 bytes to notes.md", "error": nil},
	}}
	if diff := cmp.Diff(want, res["structuredContent"]); diff != "" || res["isError"] == true {
		t.Errorf("submit-plan: (-want +got):\n%s\n%v", diff, res)
	}
	if meta, _ := res["_meta"].(map[string]any); meta["task_id"] != "plan-1" {
		t.Errorf("_meta %v", res["_meta"])
	}

	// The README's command line, as shown, in the directory of its
	// exchange (greeting.txt).
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	const prefix = "npx @modelcontextprotocol/inspector --cli planc serve --mcp"
	m := regexp.MustCompile("`(" + regexp.QuoteMeta(prefix) + "[^`]*)`").FindSubmatch(regexp.MustCompile(`\s+`).ReplaceAll(readme, []byte(" ")))
	if m == nil {
		t.Fatalf("the README shows no %q", prefix)
	}
	var args []string
	for i, part := range strings.Split(strings.TrimPrefix(string(m[1]), prefix), "'") {
		if i%2 == 1 {
			args = append(args, part) // a single-quoted word
		} else {
			args = append(args, strings.Fields(part)...)
		}
	}
	saved := dir
	dir = readmeServeDir(t)
	res = inspect(args...)
	dir = saved
	want = map[string]any{"plan_id": "greet", "completed": true, "canceled": false, "failed_step": nil, "steps": []any{
		map[string]any{"step_id": "read", "status": "success", "output": "hello from planc\n", "error": nil},
	}}
	if diff := cmp.Diff(want, res["structuredContent"]); diff != "" || res["isError"] == true {
		t.Errorf("the README's %s …: (-want +got):\n%s\n%v", prefix, diff, res)
	}

	res = inspect("--method", "tools/call", "--tool-name", "submit-plan", "--tool-arg", "id=bad", "--tool-arg", `steps=[{"id": "x", "tool": "nope"}]`)
	content, _ := res["content"].([]any)
	if res["isError"] != true || len(content) != 1 || !strings.Contains(content[0].(map[string]any)["text"].(string), `plan:6:15: error: tool "nope" is not among the tools of the embedded default capsule`) {
		t.Errorf("a refused plan: %v", res)
	}
}
