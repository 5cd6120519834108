package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/vm"
)

// plancIn runs `planc args…` in dir.
func plancIn(t *testing.T, dir string, args ...string) runOut {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, plancBin(t), args...)
	cmd.Dir = dir
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	return runOut{so.String(), se.String(), exitCode(t, err)}
}

// TestToolsGolden: planc tools lists the capsule's built-in tools and the
// example MCP server's tools, with their descriptions and inputs, as text
// and as JSON (testdata/tools; go test -update rewrites them).
func TestToolsGolden(t *testing.T) {
	t.Parallel()
	bin := mcpServerBin(t)
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "capsule.json", `{
  "name": "local/tools",
  "capabilities": {"plan": {"submit": true}},
  "tools": {"builtin": ["notes", "compose"], "mcp": {"demo": {"command": ["`+bin+`"]}}}
}`)
	for _, f := range []struct{ format, golden string }{{"text", "text.txt"}, {"json", "json.json"}} {
		r := plancIn(t, dir, "tools", "--capsule", "capsule.json", "--format", f.format)
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("%s: exit %d: %s", f.format, r.code, r.stderr)
		}
		testkit.GoldenFile(t, filepath.Join("testdata", "tools", f.golden), r.stdout, "planc tools --format "+f.format)
	}
	if r := plancIn(t, dir, "tools", "extra"); r.code != 2 || !strings.Contains(r.stderr, `unexpected argument "extra"`) {
		t.Errorf("an argument: exit %d, %q", r.code, r.stderr)
	}
}

// countingCapsule is a manifest with the MCP servers a and b, each the
// example server started by bash, which first appends a line to starts:
// argA is a's extra argument, which is part of its command.
func countingCapsule(bin, argA string) string {
	wrap := func(name, arg string) string {
		return `"` + name + `": {"command": ["bash", "-c", "echo ` + name + ` >> starts; exec ` + bin + ` -rename echo=echo-` + name + ` -rename read=read-` + name + ` -rename write=write-` + name + ` -rename fail=fail-` + name + ` -rename crash=crash-` + name + `", "` + arg + `"]}`
	}
	return `{"name": "local/two", "capabilities": {"plan": {"submit": true}, "shell": {"allow": ["bash"]}},
  "tools": {"builtin": ["notes", "write-file"], "mcp": {` + wrap("a", argA) + `, ` + wrap("b", "x") + `}}}`
}

// starts returns the lines of dir/starts: one per server started.
func starts(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "starts"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return strings.ReplaceAll(strings.TrimSpace(string(b)), "\n", " ")
}

// TestToolsCache: planc check of a plan naming only built-in tools starts
// no MCP server; one naming an MCP tool starts each server once and keeps
// their lists in .planc/cache, so the next check starts none; a changed
// argument starts that server again, and only it; --refresh-tools starts
// every one; a replaced server executable makes a new entry.
func TestToolsCache(t *testing.T) {
	t.Parallel()
	bin := mcpServerBin(t)
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "capsule.json", countingCapsule(bin, "1"),
		"builtin.json", `{"id": "b", "steps": [{"id": "n", "tool": "notes", "input": {"body": "x"}}]}`,
		"mcp.json", `{"id": "m", "steps": [{"id": "e", "tool": "echo-a", "input": {"txt": "x"}}]}`)
	check := func(plan string, extra ...string) runOut {
		t.Helper()
		return plancIn(t, dir, append([]string{"check", "--capsule", "capsule.json"}, append(extra, plan)...)...)
	}
	if r := check("builtin.json"); r.code != 0 || starts(t, dir) != "" {
		t.Fatalf("built-in plan: exit %d %s; started %q", r.code, r.stderr, starts(t, dir))
	}
	if _, err := os.Stat(filepath.Join(dir, ".planc")); err == nil {
		t.Error("a check that listed nothing made .planc")
	}
	r := check("mcp.json")
	if r.code != 1 || !strings.Contains(r.stdout, `tool "echo-a": the input has no "text"`) {
		t.Fatalf("mcp plan: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	first := r.stdout
	if s := starts(t, dir); s != "a b" && s != "b a" {
		t.Fatalf("first check started %q, want a and b once", s)
	}
	if r := check("mcp.json"); r.stdout != first || starts(t, dir) != "a b" && starts(t, dir) != "b a" {
		t.Errorf("second check: started %q; output\n%s", starts(t, dir), r.stdout)
	}
	if r := plancIn(t, dir, "tools", "--capsule", "capsule.json"); r.code != 0 || !strings.Contains(r.stdout, "echo-b (MCP server \"b\")") || len(strings.Fields(starts(t, dir))) != 2 {
		t.Errorf("tools from the cache: exit %d, started %q\n%s", r.code, starts(t, dir), r.stdout)
	}
	testkit.WriteFiles(t, dir, "capsule.json", countingCapsule(bin, "2"))
	if r := check("mcp.json"); r.stdout != first || len(strings.Fields(starts(t, dir))) != 3 || !strings.HasSuffix(starts(t, dir), "a") {
		t.Errorf("changed argument of a: started %q, want a once more", starts(t, dir))
	}
	if check("mcp.json", "--refresh-tools"); len(strings.Fields(starts(t, dir))) != 5 {
		t.Errorf("--refresh-tools: started %q, want both once more", starts(t, dir))
	}

	// The executable: a server run directly, then replaced by a copy
	// (another inode, size or time): its list is made anew.
	exe := filepath.Join(dir, "server")
	copyExe(t, bin, exe)
	testkit.WriteFiles(t, dir, "direct.json", `{"name": "local/d", "capabilities": {"plan": {"submit": true}}, "tools": {"mcp": {"d": {"command": ["./server"]}}}}`)
	entries := func() int {
		m, _ := filepath.Glob(filepath.Join(dir, ".planc", "cache", "mcp-d-*.json"))
		return len(m)
	}
	// Each check must have listed d's tools (its one tool, echo, is then
	// suggested for the plan's echo-a): a failed start would list nothing,
	// and keep nothing, which the entry counts below would misread.
	checkDirect := func(when string) {
		t.Helper()
		if r := plancIn(t, dir, "check", "--capsule", "direct.json", "mcp.json"); !strings.Contains(r.stdout, `(did you mean "echo"?)`) {
			t.Fatalf("check with server d %s: exit %d\n%s%s", when, r.code, r.stdout, r.stderr)
		}
	}
	checkDirect("first")
	checkDirect("again")
	if n := entries(); n != 1 {
		t.Fatalf("%d cache entries for d, want 1", n)
	}
	os.Remove(exe)
	copyExe(t, bin, exe)
	os.Chtimes(exe, time.Now(), time.Now().Add(time.Hour))
	checkDirect("after the executable changed")
	if n := entries(); n != 2 {
		t.Errorf("%d cache entries for d after the executable changed, want 2", n)
	}
}

// copyExe copies an executable with cp, not with a write from this
// process: a file this process has open for writing is inherited by any
// child another parallel test forks in that moment (until it execs), and
// running the copy then fails with ETXTBSY (go.dev/issue/22315) — which
// made TestToolsCache's server start fail now and then under load.
func copyExe(t *testing.T, from, to string) {
	t.Helper()
	if out, err := exec.Command("cp", from, to).CombinedOutput(); err != nil {
		t.Fatalf("cp %s %s: %v\n%s", from, to, err, out)
	}
}

// TestToolsCacheProtected: the cache lives in .planc, which a run's
// steps cannot write: a write-file step and a shell step aiming at it are
// refused, and the kept list stays as it was.
func TestToolsCacheProtected(t *testing.T) {
	testkit.NeedScope(t)
	t.Parallel()
	bin := mcpServerBin(t)
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "capsule.json", countingCapsule(bin, "1"),
		"mcp.json", `{"id": "m", "steps": [{"id": "e", "tool": "echo-a", "input": {"text": "x"}}]}`)
	if r := plancIn(t, dir, "check", "--capsule", "capsule.json", "mcp.json"); r.code != 0 {
		t.Fatalf("check: exit %d %s%s", r.code, r.stdout, r.stderr)
	}
	kept, _ := filepath.Glob(filepath.Join(dir, ".planc", "cache", "mcp-a-*.json"))
	if len(kept) != 1 {
		t.Fatalf("cache entries of a: %v", kept)
	}
	before, _ := os.ReadFile(kept[0])
	rel, _ := filepath.Rel(dir, kept[0])
	testkit.WriteFiles(t, dir, "attack.json", `{"id": "w", "steps": [
		{"id": "tool", "tool": "write-file", "on_error": "continue", "input": {"path": "`+rel+`", "content": "{}"}},
		{"id": "sh", "shell": "bash -c 'echo {} > `+rel+`'", "on_error": "continue"}
	]}`)
	r := plancIn(t, dir, "run", "--capsule", "capsule.json", "attack.json")
	rep := r.report(t)
	for _, s := range rep.Steps {
		if s.Status != vm.StatusFailed || s.Error == nil || !strings.Contains(*s.Error, "which no step may change") {
			t.Errorf("step %s: %s (%v), want failed: the cache is protected", s.StepID, s.Status, s.Error)
		}
	}
	if after, _ := os.ReadFile(kept[0]); !bytes.Equal(before, after) {
		t.Errorf("the cache entry changed: %s", after)
	}
}
