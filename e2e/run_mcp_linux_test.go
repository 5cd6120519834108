package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/vm"
)

// The end-to-end tests of MCP tools run planc with the example MCP server
// (examples/mcp/server), built once next to the planc binary.

// mcpServerBin is the example MCP server's binary (testkit.MCPDemoServer).
func mcpServerBin(t *testing.T) string { t.Helper(); return testkit.MCPDemoServer(t) }

// mcpCapsule is testkit.MCPCapsule.
var mcpCapsule = testkit.MCPCapsule

// noServerLeft is testkit.NoServerLeft.
func noServerLeft(t *testing.T, bin string) { t.Helper(); testkit.NoServerLeft(t, bin) }

// plancCheck runs `planc check args…` in dir.
func plancCheck(t *testing.T, dir string, args ...string) runOut {
	t.Helper()
	so, se, code := testkit.RunCmd(t, testkit.PlancCmd(t, dir, "check", args...))
	return runOut{so, se, code}
}

func TestRunMCP(t *testing.T) {
	testkit.NeedScope(t)
	bin := mcpServerBin(t)
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "capsule.json", mcpCapsule("demo", []string{bin}), "data/a.txt", "secret\n", "plan.json", `{"id": "mcp", "steps": [
		{"id": "hello", "tool": "echo", "input": {"text": "hi", "times": 2}},
		{"id": "look", "tool": "read", "input": {"path": "data/a.txt"}},
		{"id": "where", "tool": "read", "input": {"path": "/proc/self/cgroup"}},
		{"id": "bad", "tool": "fail", "input": {"message": "no luck"}, "on_error": "continue"},
		{"id": "guarded", "tool": "write", "input": {"path": "data/b.txt", "content": "x"}, "on_error": "continue"},
		{"id": "put", "tool": "write", "depends_on": ["hello"], "input": {"path": "out.txt", "content": "$hello.output"}},
		{"id": "boom", "tool": "crash", "depends_on": ["put", "bad", "guarded", "look", "where"], "on_error": "continue"},
		{"id": "after", "tool": "echo", "depends_on": ["boom"], "input": {"text": "still there?"}, "on_error": "continue"},
		{"id": "note", "tool": "notes", "depends_on": ["after"], "input": {"body": "went on"}}
	]}`)
	start := time.Now()
	r := planc(t, dir, "--capsule", "capsule.json", "plan.json")
	took := time.Since(start)
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	t.Logf("planc run with one MCP server took %v", took)
	got := map[string]vm.StepReport{}
	for _, s := range r.report(t).Steps {
		got[s.StepID] = s
	}
	sess := oneSession(t, dir)
	id := filepath.Base(sess)
	if w := got["where"]; w.Output == nil || !strings.Contains(*w.Output, "/planc-"+id+"-1/mcp-") {
		t.Errorf("the server runs in %v; want a leaf of the plan's scope planc-%s-1", w.Output, id)
	}
	delete(got, "where")
	exited := `MCP server "demo" exited: exit status 3; its standard error ends: "mcp-demo: crashing as asked, with exit status 3"`
	want := map[string]vm.StepReport{
		"hello":   {StepID: "hello", Status: vm.StatusSuccess, Output: ptr("hi\nhi")},
		"look":    {StepID: "look", Status: vm.StatusSuccess, Output: ptr("secret\n")},
		"bad":     {StepID: "bad", Status: vm.StatusFailed, Output: ptr("no luck"), Error: ptr("fail: no luck")},
		"guarded": {StepID: "guarded", Status: vm.StatusFailed, Error: ptr(`refused: step writes "data/b.txt" (input "path" of tool write), which is under capabilities.filesystem.read_only "data"; write elsewhere or remove the path from read_only`)},
		"put":     {StepID: "put", Status: vm.StatusSuccess, Output: ptr("wrote 5 bytes to out.txt")},
		"boom":    {StepID: "boom", Status: vm.StatusFailed, Error: ptr(exited)},
		"after":   {StepID: "after", Status: vm.StatusFailed, Error: ptr(exited)},
		"note":    {StepID: "note", Status: vm.StatusSuccess, Output: ptr("appended 8 bytes to notes.md")},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "out.txt")); string(b) != "hi\nhi" {
		t.Errorf("out.txt %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "b.txt")); !os.IsNotExist(err) {
		t.Errorf("the refused write happened: %v", err)
	}
	denied := 0
	for _, l := range testkit.TraceLines(t, filepath.Join(sess, "trace.jsonl")) {
		if l["event"] == "protected_path_denied" && l["step_id"] == "guarded" {
			denied++
		}
	}
	if denied != 1 {
		t.Errorf("%d protected_path_denied lines for guarded, want 1", denied)
	}
	noServerLeft(t, bin)
	if left := testkit.ScopesLeft(t, id); len(left) > 0 {
		t.Errorf("scopes left behind: %v", left)
	}
}

func TestRunMCPRefusals(t *testing.T) {
	testkit.NeedScope(t)
	bin := mcpServerBin(t)
	dir := t.TempDir()
	testkit.WriteFiles(t, dir,
		"dup.json", mcpCapsule("a", []string{bin}, "b", []string{bin, "-rename", "echo=notes", "-rename", "crash=boom", "-rename", "fail=no", "-rename", "read=look"}),
		"one.json", mcpCapsule("demo", []string{bin}),
		"broken.json", mcpCapsule("demo", []string{bin}, "bad", []string{"sh", "-c", "echo broken config >&2; exit 4"}),
		"missing.json", mcpCapsule("gone", []string{"./no-such-server"}),
		"plan.json", `{"id": "p", "steps": [{"id": "a", "tool": "echo", "input": {"text": "x"}}]}`,
		"typo.json", `{"id": "p", "steps": [{"id": "a", "tool": "ecko", "input": {"text": "x"}}]}`,
		"unknown.json", `{"id": "p", "steps": [{"id": "a", "tool": "zzz"}]}`,
	)
	tests := []struct {
		capsule, plan string
		stderr        []string // each must be in standard error
	}{
		{"dup.json", "plan.json", []string{
			`planc run: tool "notes" is offered by two sources, the built-in tools (tools.builtin) and MCP server "b"; a tool name must come from one source, so drop one of them from the manifest`,
			"\n" + `tool "write" is offered by two sources, MCP server "a" and MCP server "b"; `,
		}},
		{"one.json", "typo.json", []string{`typo.json:1:43: error: tool "ecko" is not among the tools of one.json, which has "crash", "echo", "fail", "notes", "read", "write" (did you mean "echo"?); add an MCP server offering "ecko" to tools.mcp [unknown-tool]`}},
		{"one.json", "unknown.json", []string{`tool "zzz" is not among the tools of one.json, which has "crash", "echo", "fail", "notes", "read", "write"; add an MCP server offering "zzz" to tools.mcp [unknown-tool]`}},
		{"broken.json", "plan.json", []string{`planc run: MCP server "bad" did not start: it exited (exit status 4) before it answered; its standard error ends: "broken config"` + "\n"}},
		{"missing.json", "plan.json", []string{`planc run: MCP server "gone" did not start: cannot run "./no-such-server": no such file or directory` + "\n"}},
	}
	for _, tt := range tests {
		r := planc(t, dir, "--capsule", tt.capsule, tt.plan)
		if r.code != 2 || r.stdout != "" {
			t.Errorf("%s %s: exit %d, stdout %q; want 2 and nothing", tt.capsule, tt.plan, r.code, r.stdout)
		}
		for _, w := range tt.stderr {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("%s %s: standard error\n%s\nlacks\n%s", tt.capsule, tt.plan, r.stderr, w)
			}
		}
		// Refused once the servers ran, and still nothing made: no
		// session, not even .planc/sessions.
		if _, err := os.Stat(filepath.Join(dir, ".planc")); !os.IsNotExist(err) {
			t.Errorf("%s %s: the refused plan left .planc behind (%v)", tt.capsule, tt.plan, err)
			os.RemoveAll(filepath.Join(dir, ".planc"))
		}
	}

	// In a session that exists, a plan refused for an unknown tool takes
	// no plan number and writes no trace line.
	sess := filepath.Join(dir, "kept")
	if r := planc(t, dir, "--capsule", "one.json", "--session", sess, "plan.json"); r.code != 0 {
		t.Fatalf("the first plan: exit %d\n%s", r.code, r.stderr)
	}
	before, err := os.ReadFile(filepath.Join(sess, "trace.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if r := planc(t, dir, "--capsule", "one.json", "--session", sess, "unknown.json"); r.code != 2 {
		t.Errorf("the unknown tool in a session: exit %d\n%s", r.code, r.stderr)
	}
	if after, _ := os.ReadFile(filepath.Join(sess, "trace.jsonl")); !bytes.Equal(before, after) {
		t.Errorf("the refused plan wrote to the trace:\n%s", after[len(before):])
	}
	if _, err := os.Stat(filepath.Join(sess, "plans", "plan-2.json")); !os.IsNotExist(err) {
		t.Errorf("the refused plan's file is there: %v", err)
	}
	if r := planc(t, dir, "--capsule", "one.json", "--session", sess, "plan.json"); r.code != 0 {
		t.Fatalf("the next plan: exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(sess, "plans", "plan-2.json")); err != nil {
		t.Errorf("the next plan did not get number 2: %v", err)
	}
	// A --session directory the refused plan would have made is not left.
	if r := planc(t, dir, "--capsule", "one.json", "--session", filepath.Join(dir, "new", "s"), "unknown.json"); r.code != 2 {
		t.Errorf("the unknown tool in a new session: exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); !os.IsNotExist(err) {
		t.Errorf("the refused plan left its --session directory behind (%v)", err)
	}
	noServerLeft(t, bin)
}

func TestCheckMCP(t *testing.T) {
	bin := mcpServerBin(t)
	dir := t.TempDir()
	testkit.WriteFiles(t, dir,
		"one.json", mcpCapsule("demo", []string{bin}),
		"dup.json", mcpCapsule("a", []string{bin}, "b", []string{bin}),
		"broken.json", mcpCapsule("demo", []string{bin}, "bad", []string{"sh", "-c", "echo broken config >&2; exit 4"}),
		"plan.json", `{"id": "p", "steps": [{"id": "a", "tool": "echo", "input": {"text": "x"}}, {"id": "n", "tool": "notes", "input": {"body": "$a.output"}, "depends_on": ["a"]}]}`,
		"unknown.json", `{"id": "p", "steps": [{"id": "a", "tool": "zzz"}]}`,
		"proj/.planc/capsule.json", mcpCapsule("demo", []string{"./demo"}),
		"proj/sub/keep", "",
	)
	r := plancCheck(t, dir, "--capsule", "one.json", "plan.json")
	if r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Errorf("a plan calling an MCP tool: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = plancCheck(t, dir, "--capsule", "one.json", "unknown.json")
	want := `unknown.json:1:43: error: tool "zzz" is not among the tools of one.json, which has "crash", "echo", "fail", "notes", "read", "write"; add an MCP server offering "zzz" to tools.mcp [unknown-tool]`
	if r.code != 1 || !strings.HasPrefix(r.stdout, want+"\n") {
		t.Errorf("an unknown tool: exit %d\n%s\n%s\nwant 1 and\n%s", r.code, r.stdout, r.stderr, want)
	}
	// A .planc/capsule.json found in a parent: its server's command, a
	// relative path with a slash, starts from the manifest's directory,
	// .planc, wherever planc runs; planc run finds and starts it too.
	if err := os.Symlink(bin, filepath.Join(dir, "proj", ".planc", "demo")); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "proj", "sub")
	r = plancCheck(t, sub, "../../plan.json")
	if r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Errorf("the found capsule's relative server command: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = plancCheck(t, dir, "--capsule", "broken.json", "plan.json")
	want = `planc check: capsule manifest: MCP server "bad" did not start: it exited (exit status 4) before it answered; its standard error ends: "broken config"` + "\n"
	if r.code != 2 || r.stdout != "" || r.stderr != want {
		t.Errorf("a server that does not start: exit %d\n%s\n%s\nwant 2 and\n%s", r.code, r.stdout, r.stderr, want)
	}
	r = plancCheck(t, dir, "--capsule", "dup.json", "plan.json")
	want = `planc check: capsule manifest: tool "crash" is offered by two sources, MCP server "a" and MCP server "b"; a tool name must come from one source, so drop one of them from the manifest` + "\n"
	if r.code != 2 || !strings.HasPrefix(r.stderr, want) {
		t.Errorf("two servers offering one name: exit %d\n%s\nwant 2 and\n%s", r.code, r.stderr, want)
	}
	noServerLeft(t, bin)

	testkit.NeedScope(t)
	if r := planc(t, sub, "../../plan.json"); r.code != 0 || !strings.Contains(r.stdout, `"output": "x"`) {
		t.Errorf("planc run with the found capsule: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	noServerLeft(t, bin)
}
