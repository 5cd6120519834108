package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/host"
	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/vm"
)

// shellCapsule allows sh, echo and sleep.
const shellCapsule = `{
  "name": "local/shell",
  "capabilities": {"plan": {"submit": true}, "shell": {"allow": ["sh", "echo", "sleep", "true"]}},
  "tools": {"builtin": ["notes", "read-file"]}
}`

func TestRunShell(t *testing.T) {
	testkit.NeedScope(t)
	t.Parallel()
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "capsule.json", shellCapsule, "plan.json", `{"id": "sh", "steps": [
		{"id": "hello", "shell": "echo hello world"},
		{"id": "mixed", "shell": "sh -c 'echo out; echo err >&2; echo out2; exit 3'", "on_error": "continue"},
		{"id": "bg", "shell": "sh -c 'sleep 313.37 & echo started'"},
		{"id": "note", "tool": "notes", "depends_on": ["mixed"], "input": {"body": "$mixed.output"}}
	]}`)
	r := planc(t, dir, "--capsule", "capsule.json", "plan.json")
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	got := map[string]vm.StepReport{}
	for _, s := range r.report(t).Steps {
		got[s.StepID] = s
	}
	want := map[string]vm.StepReport{
		"hello": {StepID: "hello", Status: vm.StatusSuccess, Output: ptr("hello world\n")},
		"mixed": {StepID: "mixed", Status: vm.StatusFailed, Output: ptr("out\nerr\nout2\n"), Error: ptr("exit status 3")},
		"bg":    {StepID: "bg", Status: vm.StatusSuccess, Output: ptr("started\n")},
		"note":  {StepID: "note", Status: vm.StatusSuccess, Output: ptr("appended 13 bytes to notes.md")},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
	// The background sleep was killed with its step's leaf cgroup, and
	// the scope is gone.
	if left := testkit.Running("sleep 313.37"); len(left) > 0 {
		t.Errorf("a step left processes behind: %v", left)
	}
	if left := testkit.ScopesLeft(t, filepath.Base(oneSession(t, dir))); len(left) > 0 {
		t.Errorf("cgroups left behind: %v", left)
	}
}

// TestRunShellProtection: a shell step cannot write its own plan file,
// even when the pre-check cannot see the path, while it can still write
// in the working directory that holds the session.
func TestRunShellProtection(t *testing.T) {
	testkit.NeedScope(t)
	t.Parallel()
	dir := t.TempDir()
	sess := filepath.Join(dir, "sess")
	// ${d}ns hides the path from the read_only pre-check: only the kernel
	// can stop it.
	testkit.WriteFiles(t, dir, "capsule.json", shellCapsule, "plan.json", `{"id": "own", "steps": [
		{"id": "clobber", "shell": "sh -c 'd=`+sess+`/pla; echo hacked > ${d}ns/plan-1.json'", "on_error": "continue"},
		{"id": "remove", "shell": "sh -c 'd=`+sess+`/pla; rm -f ${d}ns/plan-1.json'", "on_error": "continue"},
		{"id": "beside", "shell": "sh -c 'echo fine > created.txt && mkdir -p target && echo x > target/out'"}
	]}`)
	r := planc(t, dir, "--capsule", "capsule.json", "--session", sess, "plan.json")
	if strings.Contains(r.stderr, "protection") {
		t.Skipf("the kernel cannot protect here: %s", r.stderr)
	}
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	rep := r.report(t)
	for _, s := range rep.Steps {
		wantFail := s.StepID != "beside"
		if (s.Status == vm.StatusFailed) != wantFail {
			t.Errorf("%s: %s %s %s", s.StepID, s.Status, deref(s.Output), deref(s.Error))
		}
	}
	plan, _ := os.ReadFile(filepath.Join(dir, "plan.json"))
	if got, err := os.ReadFile(filepath.Join(sess, "plans", "plan-1.json")); err != nil || !bytes.Equal(got, plan) {
		t.Errorf("the plan file was changed: %q %v", got, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "target", "out")); string(b) != "x\n" {
		t.Errorf("the step could not write beside the session: %q", b)
	}
}

func TestRunShellTimeout(t *testing.T) {
	testkit.NeedScope(t)
	t.Parallel()
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "capsule.json", shellCapsule, "plan.json", `{"id": "slow", "steps": [{"id": "nap", "shell": "sleep 30"}]}`)
	start := time.Now()
	r := planc(t, dir, "--capsule", "capsule.json", "--shell-timeout", "300ms", "plan.json")
	if r.code != 1 {
		t.Fatalf("exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if s := r.report(t).Steps[0]; s.Error == nil || *s.Error != "timed out after 300ms" {
		t.Errorf("error %s", deref(s.Error))
	}
	if d := time.Since(start); d > 25*time.Second { // well short of the sleep's 30 s, even on a loaded machine
		t.Errorf("took %v", d)
	}
}

// startPlanc starts planc run and waits until the trace shows the step
// stepID running; its standard output and error may be read while it runs.
func startPlanc(t *testing.T, dir, sess, stepID string, args ...string) (*exec.Cmd, *testkit.Buffer, *testkit.Buffer) {
	t.Helper()
	cmd := plancCmd(t, dir, args...)
	var so, se testkit.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	started := testkit.Within(0, func() bool {
		b, _ := os.ReadFile(filepath.Join(sess, "trace.jsonl"))
		return bytes.Contains(b, []byte(`"event":"plan_step_start","session"`)) && bytes.Contains(b, []byte(`"step_id":"`+stepID+`"`))
	})
	if !started {
		t.Fatalf("step %s did not start; stderr:\n%s", stepID, se.String())
	}
	return cmd, &so, &se
}

// TestRunCancel: SIGINT cancels the plan (S22): the running shell step
// runs to its end, the steps not dispatched settle skipped with the
// cancel's error (docs/plans.md, "Cancel"; S22), and planc exits 3.
func TestRunCancel(t *testing.T) {
	testkit.NeedScope(t)
	t.Parallel()
	dir := t.TempDir()
	sess := filepath.Join(dir, "sess")
	testkit.WriteFiles(t, dir, "capsule.json", shellCapsule, "plan.json", `{"id": "c", "steps": [
		{"id": "slow", "shell": "sh -c 'echo started; sleep 1; echo finished'"},
		{"id": "after", "tool": "notes", "depends_on": ["slow"], "input": {"body": "x"}}
	]}`)
	cmd, so, se := startPlanc(t, dir, sess, "slow", "--capsule", "capsule.json", "--session", sess, "plan.json")
	cmd.Process.Signal(syscall.SIGINT)
	if code := exitCode(t, cmd.Wait()); code != 3 {
		t.Fatalf("exit %d:\n%s\n%s", code, so, se)
	}
	r := runOut{stdout: so.String(), stderr: se.String()}
	want := vm.Report{PlanID: "c", Canceled: true, Steps: []vm.StepReport{
		{StepID: "after", Status: vm.StatusSkipped, Error: ptr("the task running this plan was cancelled before this step ran")},
		{StepID: "slow", Status: vm.StatusSuccess, Output: ptr("started\nfinished\n")},
	}}
	if diff := cmp.Diff(want, r.report(t)); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
	if !strings.HasPrefix(r.stderr, "planc run: cancelling the plan… Ctrl-C again to kill at once\n") ||
		!strings.HasSuffix(r.stderr, "Plan 'c' was cancelled: 2 steps, 1 succeeded, 0 failed, 1 skipped\n") {
		t.Errorf("stderr: %q", r.stderr)
	}
	lines := testkit.TraceLines(t, filepath.Join(sess, "trace.jsonl"))
	if n := len(lines); lines[n-2]["outcome"] != "canceled" || lines[n-1]["exit_status"] != "canceled" {
		t.Errorf("trace ends %v %v", lines[n-2], lines[n-1])
	}
}

// TestRunAbort: a second SIGINT ends everything at once.
func TestRunAbort(t *testing.T) {
	testkit.NeedScope(t)
	t.Parallel()
	dir := t.TempDir()
	sess := filepath.Join(dir, "sess")
	testkit.WriteFiles(t, dir, "capsule.json", shellCapsule, "plan.json", `{"id": "a", "steps": [{"id": "long", "shell": "sleep 271.82"}]}`)
	cmd, so, se := startPlanc(t, dir, sess, "long", "--capsule", "capsule.json", "--session", sess, "plan.json")
	start := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	// The second SIGINT once planc has taken the first: it says so at once.
	testkit.Eventually(t, 0, "planc run to acknowledge the first SIGINT", func() bool {
		return strings.Contains(se.String(), "planc run: cancelling the plan… Ctrl-C again to kill at once\n")
	})
	cmd.Process.Signal(syscall.SIGINT)
	if code := exitCode(t, cmd.Wait()); code != 3 {
		t.Fatalf("exit %d:\n%s\n%s", code, so, se)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("took %v to end", d)
	}
	rep := runOut{stdout: so.String()}.report(t)
	if !rep.Canceled || len(rep.Steps) != 1 || rep.Steps[0].Status != vm.StatusFailed || !strings.HasPrefix(deref(rep.Steps[0].Error), "killed") {
		t.Errorf("report %+v (error %s)", rep, deref(rep.Steps[0].Error))
	}
	if left := testkit.Running("sleep 271.82"); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
	if left := testkit.ScopesLeft(t, testkit.SessionID(t, sess)); len(left) > 0 {
		t.Errorf("cgroups left behind: %v", left)
	}
}

// TestRunNoScope: a plan with a shell step and no delegated cgroup v2
// scope is refused with E-RUN-012 before it is written. Run as root, the
// test runs planc as nobody, who cannot create a cgroup here.
func TestRunNoScope(t *testing.T) {
	t.Parallel()
	bin := plancBin(t)
	setpriv, err := exec.LookPath("setpriv")
	if os.Geteuid() != 0 || err != nil {
		t.Skip("needs root and setpriv to run planc as an unprivileged user")
	}
	dir := t.TempDir()
	for d := dir; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		os.Chmod(d, 0o755) // nobody must reach the plan
	}
	os.Chmod(dir, 0o777)
	testkit.WriteFiles(t, dir, "capsule.json", shellCapsule, "plan.json", `{"id": "s", "steps": [{"id": "a", "shell": "true"}]}`)
	cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", bin, "run", "--capsule", "capsule.json", "plan.json")
	cmd.Dir = dir
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	code := exitCode(t, cmd.Run())
	if code != 2 || so.Len() != 0 || !strings.HasPrefix(se.String(), "planc run: E-RUN-012: no delegated cgroup v2 scope: ") || !strings.HasSuffix(se.String(), "; "+host.ScopeFix+"\n") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want E-RUN-012 ending with its fix", code, so.String(), se.String())
	}
	if _, err := os.Stat(filepath.Join(dir, ".planc")); err == nil {
		t.Error("the refused plan made a session directory")
	}
	t.Log(strings.TrimSpace(se.String()))
}

// TestRunShellRefusals: read_only and an on-shell deny hook refuse shell
// steps before dispatch, with their trace lines; nothing runs.
func TestRunShellRefusals(t *testing.T) {
	testkit.NeedScope(t)
	t.Parallel()
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "src/keep.go", "package keep\n", "capsule.json", `{
		"name": "local/guarded",
		"capabilities": {"plan": {"submit": true}, "shell": {"allow": ["sh", "echo"]}, "filesystem": {"read_only": ["src"]}},
		"hooks": [{"on": "on-shell", "match": "echo h*", "commit_policy": "deny"}]
	}`, "plan.json", `{"id": "guard", "steps": [
		{"id": "ro", "shell": "sh -c 'echo x > src/keep.go'", "on_error": "continue"},
		{"id": "hook", "shell": "echo hi", "on_error": "continue"},
		{"id": "ok", "shell": "sh -c 'echo fine'"}
	]}`)
	r := planc(t, dir, "--capsule", "capsule.json", "plan.json")
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	rep := r.report(t)
	for _, s := range rep.Steps {
		switch s.StepID {
		case "ro", "hook":
			if s.Status != vm.StatusFailed || !strings.HasPrefix(deref(s.Error), "refused") {
				t.Errorf("%s: %s %s", s.StepID, s.Status, deref(s.Error))
			}
		default:
			if s.Status != vm.StatusSuccess || deref(s.Output) != "fine\n" {
				t.Errorf("%s: %s %s", s.StepID, s.Status, deref(s.Output))
			}
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "src", "keep.go")); string(b) != "package keep\n" {
		t.Errorf("src/keep.go was written: %q", b)
	}
	var got []string
	for _, l := range testkit.TraceLines(t, filepath.Join(oneSession(t, dir), "trace.jsonl")) {
		switch e := l["event"]; e {
		case "protected_path_denied", "call_denied", "plan_step_start":
			got = append(got, e.(string)+" "+l["step_id"].(string))
		}
	}
	want := []string{"protected_path_denied ro", "call_denied hook", "plan_step_start ok"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
}
