package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

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
	wantErr := "plan.json:2:23: error: tool \"nope\" is not among the tools of the embedded default capsule, which has \"compose\", \"notes\", \"read-file\", \"repo-files\", \"write-file\" (did you mean \"notes\"?); run planc init to make .planc/capsule.json, then add an MCP server offering \"nope\" to its tools.mcp [unknown-tool]\n" +
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
	// check predicts it: the same refusal, and exit 2 (a refused capsule
	// manifest), where it once passed the plan.
	so, se, code := testkit.RunCmd(t, testkit.PlancCmd(t, dir, "check", "--capsule", "nosubmit.json", "ok.json"))
	if want := "planc check: " + strings.TrimPrefix(r.stderr, "planc run: "); code != 2 || so != "" || se != want {
		t.Errorf("check with no plan.submit: exit %d, stdout %q, stderr %q; want exit 2 and %q", code, so, se, want)
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

// TestRunReadOnlyMissing: a read_only entry that names nothing when the
// plan starts gets one notice saying the kernel cannot hold it (often a
// typo); the plan runs, and an entry that exists gets none.
func TestRunReadOnlyMissing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "capsule.json", `{"name": "local/ro", "capabilities": {"plan": {"submit": true}, "filesystem": {"read_only": ["gen.txt", "src"]}},
		"tools": {"builtin": ["notes"]}}`, "src/a.go", "", "plan.json", `{"id": "p", "steps": [{"id": "n", "tool": "notes", "input": {"body": "x"}}]}`)
	r := planc(t, dir, "--capsule", "capsule.json", "plan.json")
	want := `planc run: capabilities.filesystem.read_only: "gen.txt" (` + filepath.Join(dir, "gen.txt") + `) does not exist as the plan starts, so the kernel cannot hold it read-only; ` +
		"only the step refusals and the tools' checks keep steps from making it: check the path, or make it before the run\n"
	if r.code != 0 || strings.Count(r.stderr, "does not exist as the plan starts") != 1 || !strings.Contains(r.stderr, want) {
		t.Errorf("exit %d, stderr:\n%s\nwant the line\n%s", r.code, r.stderr, want)
	}
}
