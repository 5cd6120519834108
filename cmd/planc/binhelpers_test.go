package main

// The helpers of the tests here that run the planc binary (the attack,
// environment and trace tests): thin names for internal/testkit's, which
// the end-to-end tests in e2e use too.

import (
	"os"
	"os/exec"
	"testing"

	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/vm"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

// plancBin is the planc binary the end-to-end tests run, built once
// (testkit.PlancBinary); it skips the test where there is no go command.
func plancBin(t testing.TB) string {
	t.Helper()
	return testkit.PlancBinary(t)
}

// runOut is one planc run's outcome.
type runOut struct {
	stdout, stderr string
	code           int
}

// testReport is the report, decoded into its own type so that a field
// the report gains or renames is seen here too.
type testReport = vm.Report

type testStepRe = vm.StepReport

// planc runs `planc run args…` in dir and returns what it printed and
// its exit status.
func planc(t *testing.T, dir string, args ...string) runOut {
	t.Helper()
	so, se, code := testkit.RunCmd(t, plancCmd(t, dir, args...))
	return runOut{so, se, code}
}

// plancCmd is the command planc(t, dir, args...) runs (testkit.PlancCmd).
func plancCmd(t *testing.T, dir string, args ...string) *exec.Cmd {
	t.Helper()
	return testkit.PlancCmd(t, dir, "run", args...)
}

// exitCode is the exit status that err (of Wait or Run) stands for.
func exitCode(t *testing.T, err error) int { t.Helper(); return testkit.ExitCode(t, err) }

// report decodes a run's standard output.
func (r runOut) report(t *testing.T) vm.Report {
	t.Helper()
	return testkit.DecodeReport(t, r.stdout, r.stderr)
}

// sessions returns the session directories under dir's .planc/sessions.
func sessions(t *testing.T, dir string) []string { return testkit.Sessions(dir) }

// oneSession returns the one session directory under dir.
func oneSession(t *testing.T, dir string) string { t.Helper(); return testkit.OneSession(t, dir) }

// mcpServerBin is the example MCP server's binary (testkit.MCPDemoServer).
func mcpServerBin(t *testing.T) string { t.Helper(); return testkit.MCPDemoServer(t) }

// mcpCapsule is testkit.MCPCapsule.
var mcpCapsule = testkit.MCPCapsule

// noServerLeft is testkit.NoServerLeft.
func noServerLeft(t *testing.T, bin string) { t.Helper(); testkit.NoServerLeft(t, bin) }

// resumeCapsule allows sh, which every step of the resume tests runs.
const resumeCapsule = `{"name": "local/resume", "capabilities": {"plan": {"submit": true}, "shell": {"allow": ["sh"]}}, "tools": {"builtin": ["notes"]}}`

// shellCapsule allows sh, echo and sleep.
const shellCapsule = `{
  "name": "local/shell",
  "capabilities": {"plan": {"submit": true}, "shell": {"allow": ["sh", "echo", "sleep", "true"]}},
  "tools": {"builtin": ["notes", "read-file"]}
}`

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// toolPlan is e2e's plan of built-in tools, for the progress tests here.
const toolPlan = `{
  "id": "tools",
  "steps": [
    {"id": "list", "tool": "repo-files", "input": {"glob": "src/**/*.go"}},
    {"id": "write", "tool": "write-file", "input": {"path": "out/greeting.txt", "content": "hello"}},
    {"id": "read", "tool": "read-file", "depends_on": ["write"], "input": {"path": "out/greeting.txt"}},
    {"id": "note", "tool": "notes", "depends_on": ["list"], "input": {"body": "$list.output"}},
    {"id": "never", "tool": "notes", "depends_on": ["read"], "if": "$read.output != 'hello'", "input": {"body": "x"}}
  ]
}
`
