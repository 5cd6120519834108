package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/vm"
)

// TestRunMCPFilesystemServer runs planc with the public MCP server
// @modelcontextprotocol/server-filesystem, installed from the npm
// registry into the user's cache (testkit.NPMPackage); it skips when node, npm or the
// registry are not there, and with -short.
func TestRunMCPFilesystemServer(t *testing.T) {
	if testing.Short() {
		t.Skip("installs an npm package; skipped with -short")
	}
	testkit.NeedScope(t)
	npmDir := testkit.NPMPackage(t, "@modelcontextprotocol/server-filesystem")
	server := filepath.Join(npmDir, "node_modules", ".bin", "mcp-server-filesystem")

	dir := t.TempDir()
	// The server's root is ".", its working directory, which is planc's:
	// relative paths mean the same to it and to the read_only check.
	testkit.WriteFiles(t, dir, "capsule.json", `{
  "name": "local/fs",
  "capabilities": {"plan": {"submit": true}, "filesystem": {"read_only": ["src"]}},
  "tools": {"mcp": {"fs": {"command": [`+strconv.Quote(server)+`, "."]}}}
}`, "src/a.txt", "hello\n", "plan.json", `{"id": "fs", "steps": [
		{"id": "ls", "tool": "list_directory", "input": {"path": "src"}},
		{"id": "read", "tool": "read_text_file", "input": {"path": "src/a.txt"}},
		{"id": "guarded", "tool": "write_file", "input": {"path": "src/b.txt", "content": "x"}, "on_error": "continue"},
		{"id": "put", "tool": "write_file", "input": {"path": "out/b.txt", "content": "$read.output"}, "depends_on": ["read"]},
		{"id": "outside", "tool": "read_text_file", "input": {"path": "/etc/hostname"}, "on_error": "continue"}
	]}`)
	if err := os.Mkdir(filepath.Join(dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := planc(t, dir, "--capsule", "capsule.json", "plan.json")
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	got := map[string]vm.StepReport{}
	for _, s := range r.report(t).Steps {
		got[s.StepID] = s
	}
	out := got["outside"]
	if out.Status != vm.StatusFailed || out.Error == nil || !strings.HasPrefix(*out.Error, "read_text_file: ") || !strings.Contains(*out.Error, "outside allowed directories") {
		t.Errorf("outside: %+v; want the server's refusal as the step's error", out)
	}
	delete(got, "outside")
	want := map[string]vm.StepReport{
		"ls":      {StepID: "ls", Status: vm.StatusSuccess, Output: ptr("[FILE] a.txt")},
		"read":    {StepID: "read", Status: vm.StatusSuccess, Output: ptr("hello\n")},
		"guarded": {StepID: "guarded", Status: vm.StatusFailed, Error: ptr(`refused: step writes "src/b.txt" (input "path" of tool write_file), which is under capabilities.filesystem.read_only "src"; write elsewhere or remove the path from read_only`)},
		"put":     {StepID: "put", Status: vm.StatusSuccess, Output: ptr("Successfully wrote to out/b.txt")},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "out", "b.txt")); string(b) != "hello\n" {
		t.Errorf("out/b.txt %q", b)
	}
	noServerLeft(t, npmDir)
}
