package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planc/planc/internal/testkit"
)

// dryRunDir holds the dry run's golden files: NAME.txt is what
// planc run --dry-run prints for the case NAME.
const dryRunDir = "testdata/dryrun"

// abs returns path, relative to this package's directory, as an absolute
// path: the dry-run tests run in a temporary working directory.
func abs(t *testing.T, path string) string {
	t.Helper()
	p, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// noSession fails the test when dir holds a .planc directory: a dry run
// writes no session.
func noSession(t *testing.T, dir string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, ".planc")); !os.IsNotExist(err) {
		t.Errorf("the dry run left %s/.planc behind (stat: %v)", dir, err)
	}
}

// TestDryRunGolden: planc run --dry-run prints the schedule of each
// example and golden plan exactly as its golden file has it, exits 0,
// prints no more than warnings on standard error, and leaves no .planc
// directory in the working directory.
func TestDryRunGolden(t *testing.T) {
	examples := abs(t, "../../examples")
	golden := abs(t, filepath.Join(goldenDir, "check"))
	testdata := abs(t, dryRunDir)
	capsule := filepath.Join(examples, "capsule.json")
	goldenCapsule := filepath.Join(golden, "capsule.json")
	tests := []struct {
		name     string
		args     []string
		warnings bool // standard error holds warnings
	}{
		{"hello", []string{filepath.Join(examples, "hello.json")}, false},
		{"refresh-fixtures", []string{"--capsule", capsule, filepath.Join(examples, "refresh-fixtures.json")}, false},
		{"fan-out", []string{"--capsule", capsule, filepath.Join(examples, "fan-out.json")}, false},
		{"fan-out-max-parallel-2", []string{"--capsule", capsule, "--max-parallel", "2", filepath.Join(examples, "fan-out.json")}, false},
		{"capsules", []string{"--capsule", goldenCapsule, filepath.Join(golden, "ok/capsules.json")}, false},
		{"empty", []string{filepath.Join(golden, "ok/empty.json")}, false},
		{"seed-notify", []string{"--capsule", goldenCapsule, filepath.Join(golden, "ok/seed-notify.json")}, false},
		{"transitive", []string{"--capsule", goldenCapsule, filepath.Join(golden, "ok/transitive.json")}, false},
		{"odd-ids", []string{"--capsule", goldenCapsule, filepath.Join(testdata, "odd-ids.json")}, true},
		{"shell-only-max-parallel-1", []string{"--capsule", goldenCapsule, "--max-parallel", "1", filepath.Join(testdata, "shell-only.json")}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := inTempDir(t, nil)
			got := run(t, "", append([]string{"run", "--dry-run"}, tc.args...)...)
			if got.Code != exitOK {
				t.Fatalf("exit %d, stderr:\n%s", got.Code, got.Stderr)
			}
			if tc.warnings != (got.Stderr != "") || strings.Contains(got.Stderr, ": error: ") {
				t.Errorf("stderr (warnings expected: %v):\n%s", tc.warnings, got.Stderr)
			}
			noSession(t, dir)
			testkit.GoldenFile(t, filepath.Join(testdata, tc.name+".txt"), got.Stdout, "planc run --dry-run")
		})
	}
}

// TestDryRunWritesNothing: a dry run with --session does not make the
// session directory, and one reading the plan from standard input prints
// the same schedule as one reading the file.
func TestDryRunWritesNothing(t *testing.T) {
	plan, err := os.ReadFile("../../examples/hello.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := inTempDir(t, map[string]string{"hello.json": string(plan)})
	file := run(t, "", "run", "--dry-run", "--session", "s", "hello.json")
	stdin := run(t, string(plan), "run", "-", "--dry-run")
	if file.Code != 0 || stdin.Code != 0 || file.Stderr != "" || stdin.Stderr != "" {
		t.Fatalf("file: exit %d %q; stdin: exit %d %q", file.Code, file.Stderr, stdin.Code, stdin.Stderr)
	}
	if file.Stdout != stdin.Stdout || !strings.HasPrefix(file.Stdout, `dry run of plan "hello"`) {
		t.Errorf("file:\n%s\nstdin:\n%s", file.Stdout, stdin.Stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "s")); !os.IsNotExist(err) {
		t.Errorf("the dry run made the session directory (stat: %v)", err)
	}
	noSession(t, dir)
}

// TestDryRunMCP: a dry run refuses what planc run refuses, so it starts
// the manifest's MCP servers to learn their tools, as planc check does: a
// server that does not start refuses the plan (exit 2), writing nothing.
// (run_mcp_linux_test.go runs one that starts.)
func TestDryRunMCP(t *testing.T) {
	dir := inTempDir(t, map[string]string{
		"c.json": `{"name": "local/x", "capabilities": {"plan": {"submit": true}},
			"tools": {"builtin": ["notes"], "mcp": {"fs": {"command": ["./no-such-server"]}}}}`,
		"p.json": `{"id": "p", "steps": [{"id": "r", "tool": "read_text"}, {"id": "n", "tool": "notes", "depends_on": ["r"], "input": {"body": "x"}}]}`,
	})
	got := run(t, "", "run", "--dry-run", "--capsule", "c.json", "p.json")
	want := `planc run: capsule manifest: MCP server "fs" did not start: cannot run "./no-such-server": no such file or directory` + "\n"
	if got.Code != 2 || got.Stdout != "" || got.Stderr != want {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s\nwant 2 and\n%s", got.Code, got.Stdout, got.Stderr, want)
	}
	noSession(t, dir)
}

// TestDryRunRefused: a dry run refuses what planc run refuses, with the
// same exit status (2) and diagnostics on standard error, printing no
// schedule and writing nothing.
func TestDryRunRefused(t *testing.T) {
	const noSubmit = `{"name": "local/x", "tools": {"builtin": ["notes"]}}`
	const submit = `{"name": "local/x", "capabilities": {"plan": {"submit": true}}, "tools": {"builtin": ["notes"]}}`
	tests := []struct {
		name      string
		files     map[string]string
		args      []string
		stderrHas string
	}{
		{"invalid plan", map[string]string{"p.json": `{"id": "p", "steps": [{"id": "a", "tool": "notes", "on_error": "abort"}]}`},
			[]string{"p.json"}, "p.json:1:64: error: on_error \"abort\""},
		{"capability rule", map[string]string{"p.json": `{"id": "p", "steps": [{"id": "a", "shell": "cargo test"}]}`, "c.json": submit},
			[]string{"--capsule", "c.json", "p.json"}, `"cargo" is not in capabilities.shell.allow`},
		{"no submit grant", map[string]string{"p.json": `{"id": "p", "steps": []}`, "c.json": noSubmit},
			[]string{"--capsule", "c.json", "p.json"}, "plan.submit"},
		{"missing plan", nil, []string{"nope.json"}, "nope.json"},
		{"bad flag value", nil, []string{"--max-parallel", "-1", "nope.json"}, "--max-parallel must be"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := inTempDir(t, tc.files)
			got := run(t, "", append([]string{"run", "--dry-run"}, tc.args...)...)
			if got.Code != exitUsage || got.Stdout != "" || !strings.Contains(got.Stderr, tc.stderrHas) {
				t.Errorf("exit %d (want 2), stdout %q, stderr (want %q):\n%s", got.Code, got.Stdout, tc.stderrHas, got.Stderr)
			}
			noSession(t, dir)
		})
	}
}

// TestDryRunUsage: planc help run documents --dry-run.
func TestDryRunUsage(t *testing.T) {
	got := run(t, "", "help", "run")
	if got.Code != 0 || !strings.Contains(got.Stdout, "[--dry-run]") || !strings.Contains(got.Stdout, "  --dry-run ") {
		t.Errorf("planc help run: exit %d\n%s", got.Code, got.Stdout)
	}
}
