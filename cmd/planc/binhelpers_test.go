package main

// The helpers of the tests here that run the planc binary (the attack,
// environment and trace tests); the end-to-end tests in e2e have their own.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"github.com/planc/planc/vm"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/planc/planc/internal/testkit"
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

// planc runs the binary in dir with args and returns what it printed and
// its exit status.
func planc(t *testing.T, dir string, args ...string) runOut {
	t.Helper()
	cmd := plancCmd(t, dir, args...)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	return runOut{so.String(), se.String(), exitCode(t, err)}
}

// plancCmd is the command planc(t, dir, args...) runs, killed after a
// minute at most.
func plancCmd(t *testing.T, dir string, args ...string) *exec.Cmd {
	t.Helper()
	bin := plancBin(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, bin, append([]string{"run"}, args...)...)
	cmd.Dir = dir
	// A planc that hangs gets SIGTERM and SIGINT, which kill its scope, so
	// that not even a failing test leaves a process or a cgroup behind;
	// SIGKILL comes 10 s later.
	cmd.Cancel = func() error { return testkit.StopPlanc(cmd.Process) }
	cmd.WaitDelay = 10 * time.Second
	return cmd
}

// exitCode is the exit status that err (of Wait or Run) stands for.
func exitCode(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	t.Fatalf("planc run: %v", err)
	return -1
}

// report decodes a run's standard output.
func (r runOut) report(t *testing.T) testReport {
	t.Helper()
	var rep testReport
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("the report is not JSON: %v\nstdout:\n%s\nstderr:\n%s", err, r.stdout, r.stderr)
	}
	return rep
}

// sessions returns the session directories under dir's .planc/sessions.
func sessions(t *testing.T, dir string) []string {
	t.Helper()
	s, _ := filepath.Glob(filepath.Join(dir, ".planc", "sessions", "*"))
	return s
}

// oneSession returns the one session directory under dir.
func oneSession(t *testing.T, dir string) string {
	t.Helper()
	s := sessions(t, dir)
	if len(s) != 1 {
		t.Fatalf("want one session directory, have %v", s)
	}
	return s[0]
}

var (
	mcpOnce sync.Once
	mcpBin  string // the built server; "" when it could not be built
	mcpErr  string
)

// mcpServerBin returns the example MCP server's binary, building it on
// first use; it skips t when there is no planc binary or go command.
func mcpServerBin(t *testing.T) string {
	t.Helper()
	dir := filepath.Dir(plancBin(t))
	mcpOnce.Do(func() {
		bin := filepath.Join(dir, "planc-mcp-demo")
		out, err := exec.Command("go", "build", "-o", bin, "github.com/planc/planc/examples/mcp/server").CombinedOutput()
		if err != nil {
			mcpErr = err.Error() + "\n" + string(out)
			return
		}
		mcpBin = bin
	})
	if mcpBin == "" {
		t.Fatalf("go build of the MCP server: %s", mcpErr)
	}
	return mcpBin
}

// mcpCapsule is a manifest granting notes, with read_only "data" and the
// MCP servers given as "name": [argv…] pairs.
func mcpCapsule(servers ...any) string {
	var parts []string
	for i := 0; i+1 < len(servers); i += 2 {
		var argv []string
		for _, a := range servers[i+1].([]string) {
			argv = append(argv, strconv.Quote(a))
		}
		parts = append(parts, strconv.Quote(servers[i].(string))+`: {"command": [`+strings.Join(argv, ", ")+`]}`)
	}
	return `{
  "name": "local/mcp",
  "capabilities": {"plan": {"submit": true}, "filesystem": {"read_only": ["data"]}},
  "tools": {"builtin": ["notes"], "mcp": {` + strings.Join(parts, ", ") + `}}
}`
}

// noServerLeft fails t when a process of bin still runs once planc has
// exited (waiting, with testkit's patience, for the kernel to reap it).
func noServerLeft(t *testing.T, bin string) {
	t.Helper()
	var left []string
	if testkit.Within(0, func() bool { left = testkit.Running(bin); return len(left) == 0 }) {
		return
	}
	t.Errorf("MCP server processes left behind: %v", left)
}

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
