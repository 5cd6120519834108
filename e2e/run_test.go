package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/vm"
)

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
func (r runOut) report(t *testing.T) vm.Report {
	t.Helper()
	var rep vm.Report
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

func ptr(s string) *string { return &s }

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

func TestRunCompleted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "plan.json", toolPlan, "src/a.go", "", "src/x/y/b.go", "", "src/c.txt", "", ".git/x.go", "")
	r := planc(t, dir, "plan.json")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	want := vm.Report{PlanID: "tools", Completed: true, Steps: []vm.StepReport{
		{StepID: "list", Status: vm.StatusSuccess, Output: ptr("src/a.go\nsrc/x/y/b.go")},
		{StepID: "write", Status: vm.StatusSuccess, Output: ptr("wrote 5 bytes to out/greeting.txt")},
		{StepID: "read", Status: vm.StatusSuccess, Output: ptr("hello")},
		// never waits for the tool lane behind note; its condition is
		// evaluated when the lane hands it out (S9), and it is skipped.
		{StepID: "note", Status: vm.StatusSuccess, Output: ptr("appended 22 bytes to notes.md")},
		{StepID: "never", Status: vm.StatusSkipped},
	}}
	if diff := cmp.Diff(want, r.report(t)); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
	sess := oneSession(t, dir)
	if b, _ := os.ReadFile(filepath.Join(sess, "notes.md")); string(b) != "src/a.go\nsrc/x/y/b.go\n" {
		t.Errorf("notes.md: %q", b)
	}
}

func TestRunFailed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "plan.json", `{"id": "f", "steps": [
		{"id": "a", "tool": "read-file", "input": {"path": "missing.txt"}},
		{"id": "b", "tool": "notes", "depends_on": ["a"], "input": {"body": "x"}}
	]}`)
	r := planc(t, dir, "plan.json")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1; stderr:\n%s", r.code, r.stderr)
	}
	want := vm.Report{PlanID: "f", FailedStep: ptr("a"), Steps: []vm.StepReport{
		{StepID: "a", Status: vm.StatusFailed, Error: ptr("read-file: open missing.txt: no such file or directory")},
	}}
	if diff := cmp.Diff(want, r.report(t)); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
	if r.stderr != "Plan 'f': 2 steps, 0 succeeded, 1 failed, 0 skipped\n" {
		t.Errorf("stderr: %q", r.stderr)
	}
}

func TestRunRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "plan.json", "{\"id\": \"r\", \"steps\": [\n  {\"id\": \"a\", \"tool\": \"nope\"}\n]}\n")
	r := planc(t, dir, "plan.json")
	if r.code != 2 || r.stdout != "" {
		t.Fatalf("exit %d, want 2; stdout %q", r.code, r.stdout)
	}
	wantErr := "plan.json:2:23: error: tool \"nope\" is not among the tools of the embedded default capsule (did you mean \"notes\"?); run planc init to make .planc/capsule.json, then add an MCP server offering \"nope\" to its tools.mcp [unknown-tool]\n" +
		"      {\"id\": \"a\", \"tool\": \"nope\"}\n" +
		"                          ^~~~~~\n"
	if r.stderr != wantErr {
		t.Errorf("stderr is not check's text:\n%s", r.stderr)
	}
	if s := sessions(t, dir); len(s) != 0 {
		t.Errorf("a refused plan made a session: %v", s)
	}

	// A manifest without plan.submit is refused; so is a shell binary the
	// default manifest does not allow.
	testkit.WriteFiles(t, dir, "nosubmit.json", `{"name": "local/x", "tools": {"builtin": ["notes"]}}`,
		"ok.json", `{"id": "ok", "steps": [{"id": "a", "tool": "notes", "input": {"body": "x"}}]}`,
		"shell.json", `{"id": "s", "steps": [{"id": "a", "shell": "echo hi"}]}`)
	r = planc(t, dir, "--capsule", "nosubmit.json", "ok.json")
	if r.code != 2 || !strings.Contains(r.stderr, `capsule "local/x" in nosubmit.json is not granted capabilities.plan.submit, so it cannot submit a plan; add "plan": {"submit": true} to its "capabilities"`) {
		t.Errorf("no plan.submit: exit %d, stderr %q", r.code, r.stderr)
	}
	r = planc(t, dir, "shell.json")
	if r.code != 2 || !strings.Contains(r.stderr, "[shell-not-allowed]") {
		t.Errorf("shell with the default manifest: exit %d, stderr %q", r.code, r.stderr)
	}
	for _, args := range [][]string{{}, {"a.json", "b.json"}, {"--max-parallel", "-1", "ok.json"}, {"--progress", "--quiet", "ok.json"}, {"--sesion", "x", "ok.json"}} {
		if r := planc(t, dir, args...); r.code != 2 || !strings.Contains(r.stderr, "run 'planc help run' for its usage") {
			t.Errorf("%q: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
}
