package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/internal/testkit"
)

// resumeCapsule allows sh, which every step of the resume tests runs.
const resumeCapsule = `{"name": "local/resume", "capabilities": {"plan": {"submit": true}, "shell": {"allow": ["sh"]}}, "tools": {"builtin": ["notes"]}}`

// countingPlan is a plan of four steps: one and two each append a line to
// one.count and two.count (their side effects), three runs the shell
// script given, four notes what two printed.
func countingPlan(three string) string {
	return `{"id": "count", "steps": [
  {"id": "one", "shell": "sh -c 'echo ran >> one.count; echo one done'"},
  {"id": "two", "shell": "sh -c 'echo ran >> two.count; echo two done'", "depends_on": ["one"]},
  {"id": "three", "shell": "sh -c '` + three + `'", "depends_on": ["two"]},
  {"id": "four", "tool": "notes", "input": {"body": "$two.output"}, "depends_on": ["three"]}
]}`
}

// ranOnce checks that the steps one and two ran once each in all, and that
// four saw two's output.
func ranOnce(t *testing.T, dir, sess string) {
	t.Helper()
	for _, f := range []string{"one.count", "two.count"} {
		if b, _ := os.ReadFile(filepath.Join(dir, f)); string(b) != "ran\n" {
			t.Errorf("%s holds %q: want one run in all", f, b)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(sess, "notes.md")); string(b) != "two done\n" {
		t.Errorf("notes.md %q", b)
	}
}

// stepAttempts lists each plan_step line of a trace as
// step:attempt:status, "reused" added for a reused step.
func stepAttempts(t *testing.T, sess string) []string {
	var out []string
	for _, l := range testkit.TraceLines(t, filepath.Join(sess, "trace.jsonl")) {
		if l["event"] == "plan_step" {
			s := fmt.Sprintf("%v:%v:%v", l["step_id"], l["attempt"], l["status"])
			if l["reused"] == true {
				s += ":reused"
			}
			out = append(out, s)
		}
	}
	return out
}

// waitFile waits up to 20 s for the file path to exist.
func waitFile(t *testing.T, path string) {
	t.Helper()
	testkit.Eventually(t, 0, path+" to appear", func() bool {
		_, err := os.Stat(path)
		return err == nil
	})
}

// TestResumeAfterFailure: the third step fails until a marker file
// exists; --resume once it does reruns it and the fourth, and reuses the
// first two, whose side effects happen once.
func TestResumeAfterFailure(t *testing.T) {
	testkit.NeedScope(t)
	t.Parallel()
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "capsule.json", resumeCapsule, "plan.json", countingPlan(`test -f marker || { echo no marker; exit 1; }; echo marker found`))
	first := planc(t, dir, "--capsule", "capsule.json", "plan.json")
	if first.code != 1 || *first.report(t).FailedStep != "three" {
		t.Fatalf("first run: exit %d\n%s", first.code, first.stderr)
	}
	sess := oneSession(t, dir)
	testkit.WriteFiles(t, dir, "marker", "")
	r := planc(t, dir, "--resume", "--capsule", "capsule.json")
	if r.code != 0 {
		t.Fatalf("resume: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	rep := r.report(t)
	if d := cmp.Diff([]string{"one:success", "two:success", "three:success", "four:success"}, statuses(rep)); d != "" {
		t.Errorf("report (-want +got):\n%s", d)
	}
	if o := rep.Steps[2].Output; o == nil || *o != "marker found\n" {
		t.Errorf("three's output %v", o)
	}
	ranOnce(t, dir, sess)
	want := []string{"one:1:success", "two:1:success", "three:1:failed", "one:1:success:reused", "two:1:success:reused", "three:2:success", "four:1:success"}
	if d := cmp.Diff(want, stepAttempts(t, sess)); d != "" {
		t.Errorf("plan_step lines (-want +got):\n%s", d)
	}
	if left := testkit.ScopesLeft(t, filepath.Base(sess)); len(left) > 0 {
		t.Errorf("cgroups left behind: %v", left)
	}
}

// TestResumeAfterKill: planc is killed (SIGKILL) while the third step
// runs; --resume ends what that step left running, runs it again (at
// least once: it ran in part), reuses the first two steps, and completes.
func TestResumeAfterKill(t *testing.T) {
	testkit.NeedScope(t)
	t.Parallel()
	dir := t.TempDir()
	const sleep = "sleep 271.828"
	testkit.WriteFiles(t, dir, "capsule.json", resumeCapsule, "plan.json",
		countingPlan(`echo ran >> three.count; test -f marker && { echo quick; exit 0; }; touch started; exec `+sleep))
	sess := filepath.Join(dir, ".planc", "sessions", "s")
	cmd, _, _ := startPlanc(t, dir, sess, "three", "--session", sess, "--capsule", "capsule.json", "plan.json")
	waitFile(t, filepath.Join(dir, "started"))
	cmd.Process.Kill()
	cmd.Wait()
	t.Cleanup(func() { clearLeftScopes(t, sess) })
	// Whether the sleep outlived its planc depends on how the kernel
	// contains steps here; the resume ends it if it did.

	testkit.WriteFiles(t, dir, "marker", "")
	r := planc(t, dir, "--resume", "--capsule", "capsule.json")
	if r.code != 0 {
		t.Fatalf("resume: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	ranOnce(t, dir, sess)
	if b, _ := os.ReadFile(filepath.Join(dir, "three.count")); string(b) != "ran\nran\n" {
		t.Errorf("three ran %q: want twice (at least once after the crash)", b)
	}
	want := []string{"one:1:success", "two:1:success", "one:1:success:reused", "two:1:success:reused", "three:2:success", "four:1:success"}
	if d := cmp.Diff(want, stepAttempts(t, sess)); d != "" {
		t.Errorf("plan_step lines (-want +got):\n%s", d)
	}
	if left := testkit.StillRunning(sleep, 0); len(left) > 0 {
		t.Errorf("the killed run's step still runs: %v", left)
	}
	if left := testkit.ScopesLeft(t, filepath.Base(sess)); len(left) > 0 {
		t.Errorf("cgroups left behind: %v", left)
	}
	if _, err := os.Stat(filepath.Join(sess, "reports", "plan-1.redrive-0.json")); err == nil {
		t.Error("a report of the killed run was set aside: it wrote none")
	}
}

// clearLeftScopes kills and removes what is left of the scopes of the
// session directory sess, should a test fail before a resume cleared
// them.
func clearLeftScopes(t *testing.T, sess string) {
	for _, scope := range testkit.ScopesLeft(t, filepath.Base(sess)) {
		testkit.ClearCgroup(scope)
	}
}

// TestResumeCanceled: a plan cancelled (SIGINT) while its second step
// runs ends with that step (shell steps run to their end, S22) and the
// rest skipped; --resume runs the rest.
func TestResumeCanceled(t *testing.T) {
	testkit.NeedScope(t)
	t.Parallel()
	dir := t.TempDir()
	plan := strings.Replace(countingPlan(`echo ran >> three.count; echo three done`),
		`echo ran >> two.count; echo two done`, `echo ran >> two.count; touch started; sleep 0.5; echo two done`, 1)
	testkit.WriteFiles(t, dir, "capsule.json", resumeCapsule, "plan.json", plan)
	sess := filepath.Join(dir, ".planc", "sessions", "s")
	cmd, so, se := startPlanc(t, dir, sess, "two", "--session", sess, "--capsule", "capsule.json", "plan.json")
	waitFile(t, filepath.Join(dir, "started"))
	cmd.Process.Signal(syscall.SIGINT)
	code := exitCode(t, cmd.Wait())
	first := runOut{so.String(), se.String(), code}
	if first.code != 3 || !first.report(t).Canceled {
		t.Fatalf("first run: exit %d\n%s\n%s", first.code, first.stdout, first.stderr)
	}
	r := planc(t, dir, "--resume", "--capsule", "capsule.json")
	if r.code != 0 {
		t.Fatalf("resume: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	ranOnce(t, dir, sess)
	// The first run's lines: one, then two and the cancel's skips in an
	// order the race decides; then the redrive's, in order.
	got := stepAttempts(t, sess)
	if len(got) != 8 {
		t.Fatalf("plan_step lines %v", got)
	}
	slices.Sort(got[:4])
	want := []string{"four:0:skipped", "one:1:success", "three:0:skipped", "two:1:success",
		"one:1:success:reused", "two:1:success:reused", "three:1:success", "four:1:success"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("plan_step lines (-want +got):\n%s", d)
	}
}

// TestResumeLocked: while one --resume runs the plan, a second is
// refused (exit 2) naming the pid of the first.
func TestResumeLocked(t *testing.T) {
	testkit.NeedScope(t)
	t.Parallel()
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "capsule.json", resumeCapsule, "plan.json",
		countingPlan(`test -f ready || exit 1; touch waiting; while ! test -f go; do sleep 0.05; done; echo went`))
	if r := planc(t, dir, "--capsule", "capsule.json", "plan.json"); r.code != 1 {
		t.Fatalf("first run: exit %d\n%s", r.code, r.stderr)
	}
	sess := oneSession(t, dir)
	testkit.WriteFiles(t, dir, "ready", "")
	cmd, _, se := startPlanc(t, dir, sess, "three", "--resume", "--capsule", "capsule.json")
	waitFile(t, filepath.Join(dir, "waiting"))
	second := planc(t, dir, "--resume", sess, "--capsule", "capsule.json")
	want := fmt.Sprintf("planc run: plan 1 is running: planc pid %d holds its lock (%s); wait for it to end, or end it and resume then\n", cmd.Process.Pid, filepath.Join(sess, "locks", "plan-1.lock"))
	if second.code != 2 || second.stdout != "" || !strings.HasSuffix(second.stderr, want) {
		t.Errorf("second resume: exit %d\n%s\nwant %q", second.code, second.stderr, want)
	}
	testkit.WriteFiles(t, dir, "go", "")
	if code := exitCode(t, cmd.Wait()); code != 0 {
		t.Fatalf("first resume: exit %d\n%s", code, se.String())
	}
	ranOnce(t, dir, sess)
}

// TestResumeCapsule: a redrive of a plan whose capsule step failed spawns
// a fresh delegation with a new id (its attempt numbers go on), and leaves
// the failed one's directory as it was; the capsule step that succeeded is
// reused, not spawned again; the answer is kept as the attempt's output.
func TestResumeCapsule(t *testing.T) {
	testkit.NeedScope(t)
	t.Parallel()
	dir := t.TempDir()
	testkit.WriteFiles(t, dir,
		"capsule.json", `{"name": "local/top", "capabilities": {"plan": {"submit": true}, "spawn": {"allow": ["local/ok", "local/picky"]}}}`,
		"roost/local/ok/capsule.json", `{"name": "local/ok", "entrypoint": {"command": ["sh", "-c", "echo ran >> ok.count; echo fine"]}}`,
		"roost/local/picky/capsule.json", `{"name": "local/picky", "entrypoint": {"command": ["sh", "-c", "test -f marker || { echo no marker; exit 1; }; echo got $(cat)"]}}`,
		"plan.json", `{"id": "caps", "steps": [
  {"id": "first", "capsule": "ok", "input": "go"},
  {"id": "w", "capsule": "picky", "input": "$first.output", "depends_on": ["first"], "retries": 1}
]}`)
	if r := planc(t, dir, "--capsule", "capsule.json", "plan.json"); r.code != 1 {
		t.Fatalf("first run: exit %d\n%s", r.code, r.stderr)
	}
	sess := oneSession(t, dir)
	testkit.WriteFiles(t, dir, "marker", "")
	r := planc(t, dir, "--resume", "--capsule", "capsule.json")
	if r.code != 0 {
		t.Fatalf("resume: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if o := r.report(t).Steps[1].Output; o == nil || *o != "got fine\n" {
		t.Errorf("w's output %v: want the reused step's recorded answer as its objective", o)
	}
	var ids []string
	for id := range delegationDirs(t, sess) {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	if want := []string{"plan-1-first-1", "plan-1-w-1", "plan-1-w-2", "plan-1-w-3"}; !slices.Equal(ids, want) {
		t.Errorf("delegations %v, want %v", ids, want)
	}
	if b, _ := os.ReadFile(filepath.Join(sess, "delegations", "plan-1-w-1", "answer.txt")); string(b) != "no marker\n" {
		t.Errorf("the first run's delegation was touched: answer %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "ok.count")); string(b) != "ran\n" {
		t.Errorf("ok ran %q: want once", b)
	}
	for f, want := range map[string]string{"first.1.txt": "fine\n", "w.2.txt": "no marker\n", "w.3.txt": "got fine\n"} {
		if b, _ := os.ReadFile(filepath.Join(sess, "outputs", "plan-1", f)); string(b) != want {
			t.Errorf("outputs/plan-1/%s: %q, want %q", f, b, want)
		}
	}
}

// TestResumeCutOutputGone: a reused success whose output was cut at 64 KiB
// stands for the whole output in its kept file, which a later reference
// reads. When that file is removed, or changed, the redrive runs the step
// again, with a note, rather than hand its dependent a text that is gone
// (docs/resume.md).
func TestResumeCutOutputGone(t *testing.T) {
	testkit.NeedScope(t)
	t.Parallel()
	for _, how := range []string{"removed", "changed"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			testkit.WriteFiles(t, dir, "capsule.json", resumeCapsule, "plan.json", `{"id": "cut", "steps": [
  {"id": "big", "shell": "sh -c 'echo ran >> big.count; yes a | head -c 100000'"},
  {"id": "gate", "shell": "sh -c 'test -f ok'", "depends_on": ["big"]},
  {"id": "use", "tool": "notes", "input": {"body": "$big.output"}, "depends_on": ["gate"]}
]}`)
			if r := planc(t, dir, "--capsule", "capsule.json", "plan.json"); r.code != 1 {
				t.Fatalf("first run: exit %d, want 1\n%s", r.code, r.stderr)
			}
			sess := oneSession(t, dir)
			kept := filepath.Join(sess, "outputs", "plan-1", "big.1.txt")
			if how == "removed" {
				if err := os.Remove(kept); err != nil {
					t.Fatal(err)
				}
			} else if err := os.WriteFile(kept, []byte(strings.Repeat("b\n", 50000)), 0o644); err != nil {
				t.Fatal(err)
			}
			testkit.WriteFiles(t, dir, "ok", "")
			r := planc(t, dir, "--capsule", "capsule.json", "--resume")
			if r.code != 0 || !strings.Contains(r.stderr, `step "big" succeeded, but its whole output, cut in its result, is not in its kept file outputs/plan-1/big.1.txt any more (removed or changed); it runs again`) {
				t.Fatalf("resume: exit %d\n%s", r.code, r.stderr)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "big.count")); string(b) != "ran\nran\n" {
				t.Errorf("big.count %q: big ran %d times, want 2", b, strings.Count(string(b), "ran"))
			}
			if b, _ := os.ReadFile(filepath.Join(sess, "notes.md")); !strings.HasPrefix(string(b), strings.Repeat("a\n", 50000)) {
				t.Errorf("notes.md does not hold big's whole output (%d bytes)", len(b))
			}
		})
	}
}

// TestReportAfterKilledRedrive: a redrive sets the report before it aside
// as it starts (S28); killed before its plan_end, it leaves no report of
// its own. planc trace report then prints the set-aside one, the newest
// kept, with a note that it is an earlier run's (docs/trace.md).
func TestReportAfterKilledRedrive(t *testing.T) {
	testkit.NeedScope(t)
	t.Parallel()
	dir := t.TempDir()
	const sleep = "sleep 272.818"
	testkit.WriteFiles(t, dir, "capsule.json", resumeCapsule, "plan.json",
		countingPlan(`test -f resumed || exit 3; touch started; exec `+sleep))
	sess := filepath.Join(dir, ".planc", "sessions", "s")
	if r := planc(t, dir, "--session", sess, "--capsule", "capsule.json", "plan.json"); r.code != 1 {
		t.Fatalf("first run: exit %d\n%s", r.code, r.stderr)
	}
	first, err := os.ReadFile(filepath.Join(sess, "reports", "plan-1.json"))
	if err != nil {
		t.Fatal(err)
	}
	testkit.WriteFiles(t, dir, "resumed", "")
	cmd, _, _ := startPlanc(t, dir, sess, "three", "--resume", sess, "--capsule", "capsule.json")
	waitFile(t, filepath.Join(dir, "started"))
	cmd.Process.Kill()
	cmd.Wait()
	t.Cleanup(func() { clearLeftScopes(t, sess) })
	r := plancTrace(t, dir, "report", sess)
	if r.code != 0 || r.stdout != string(first) ||
		!strings.Contains(r.stderr, "plan 1's last run has no plan_end (still running, or planc died): this report is an earlier run's, reports/plan-1.redrive-0.json") {
		t.Errorf("trace report: exit %d, stdout %q (want the first run's report), stderr %q", r.code, r.stdout, r.stderr)
	}
}
