package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/vm"
)

// toolResumePlan fails at "read" until input.txt exists; "note" writes
// what "write" said.
const toolResumePlan = `{"id": "tools", "steps": [
  {"id": "write", "tool": "write-file", "input": {"path": "out.txt", "content": "x"}},
  {"id": "read", "tool": "read-file", "input": {"path": "input.txt"}, "depends_on": ["write"]},
  {"id": "note", "tool": "notes", "input": {"body": "$write.output"}, "depends_on": ["read"]}
]}`

// statuses lists a report's steps as id:status.
func statuses(rep vm.Report) []string {
	var out []string
	for _, s := range rep.Steps {
		out = append(out, s.StepID+":"+s.Status.String())
	}
	return out
}

// TestResumeTools: a plan of tool steps that failed is redriven with
// --resume from the newest session: the step that succeeded is reused,
// the rest run; stdout is the report, kept as reports/plan-1.json with
// the first run's set aside; plan_start records the plan file's SHA-256.
// Resuming it again is refused: it completed.
func TestResumeTools(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "plan.json", toolResumePlan)
	first := planc(t, dir, "plan.json")
	if first.code != 1 {
		t.Fatalf("first run: exit %d\n%s", first.code, first.stderr)
	}
	sess := oneSession(t, dir)
	testkit.WriteFiles(t, dir, "input.txt", "in")
	r := planc(t, dir, "--resume")
	if r.code != 0 {
		t.Fatalf("resume: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	rel, _ := filepath.Rel(dir, sess)
	if want := "planc run: resuming plan 1 of the session " + rel + "\n"; r.stderr != want {
		t.Errorf("stderr %q, want %q", r.stderr, want)
	}
	if d := cmp.Diff([]string{"write:success", "read:success", "note:success"}, statuses(r.report(t))); d != "" {
		t.Errorf("report (-want +got):\n%s", d)
	}
	if b, _ := os.ReadFile(filepath.Join(sess, "reports", "plan-1.json")); string(b) != r.stdout {
		t.Errorf("kept report:\n%s\nwant what was printed:\n%s", b, r.stdout)
	}
	if b, _ := os.ReadFile(filepath.Join(sess, "reports", "plan-1.redrive-0.json")); string(b) != first.stdout {
		t.Errorf("the first report, set aside:\n%s\nwant:\n%s", b, first.stdout)
	}
	if b, _ := os.ReadFile(filepath.Join(sess, "notes.md")); string(b) != "wrote 1 byte to out.txt\n" {
		t.Errorf("notes.md %q: note did not see write's recorded output", b)
	}
	for f, want := range map[string]string{"write.1.txt": "wrote 1 byte to out.txt", "read.1.txt": "", "read.2.txt": "in", "note.1.txt": "appended 24 bytes to notes.md"} {
		b, err := os.ReadFile(filepath.Join(sess, "outputs", "plan-1", f))
		if want == "" && os.IsNotExist(err) {
			continue // an empty output has no file
		}
		if err != nil || string(b) != want {
			t.Errorf("outputs/plan-1/%s: %q, %v; want %q", f, b, err, want)
		}
	}
	src, _ := os.ReadFile(filepath.Join(sess, "plans", "plan-1.json"))
	sum := sha256.Sum256(src)
	var shas []string
	for _, l := range testkit.TraceLines(t, filepath.Join(sess, "trace.jsonl")) {
		if l["event"] == "plan_start" {
			shas = append(shas, l["sha256"].(string))
		}
	}
	if h := hex.EncodeToString(sum[:]); !cmp.Equal(shas, []string{h, h}) {
		t.Errorf("plan_start sha256 %v, want %s twice", shas, h)
	}

	again := planc(t, dir, "--resume", rel, "--plan", "1")
	if again.code != 2 || again.stdout != "" || !strings.HasSuffix(again.stderr, "planc run: nothing to resume: plan 1 completed\n") {
		t.Errorf("resume of a completed plan: exit %d\n%s\n%s", again.code, again.stdout, again.stderr)
	}
}

// TestResumeChangedPlan: a plan file whose SHA-256 is not the one its
// plan_start recorded is refused (exit 2), and nothing runs.
func TestResumeChangedPlan(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "plan.json", toolResumePlan)
	if r := planc(t, dir, "plan.json"); r.code != 1 {
		t.Fatalf("first run: exit %d", r.code)
	}
	sess := oneSession(t, dir)
	path := filepath.Join(sess, "plans", "plan-1.json")
	os.Chmod(path, 0o644)
	src, _ := os.ReadFile(path)
	if err := os.WriteFile(path, []byte(strings.Replace(string(src), `"x"`, `"y"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	testkit.WriteFiles(t, dir, "input.txt", "in")
	lines := len(testkit.TraceLines(t, filepath.Join(sess, "trace.jsonl")))
	r := planc(t, dir, "--resume", sess)
	if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, "planc run: the plan is refused: plans/plan-1.json has SHA-256 ") || !strings.Contains(r.stderr, "the file changed since; run it as a new plan") {
		t.Errorf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if n := len(testkit.TraceLines(t, filepath.Join(sess, "trace.jsonl"))); n != lines {
		t.Errorf("the refused resume wrote %d trace lines", n-lines)
	}
}

// TestResumeUsage: --resume takes a session, not a plan; --plan needs
// --resume; a missing session or plan is exit 2 with its reason.
func TestResumeUsage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "plan.json", toolResumePlan, "empty/session.json", `{"session": "x"}`)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--resume", "plan.json"}, "planc run: --resume redrives a plan that is already in a session, and takes no plan file (plan.json); name the session, or run the plan without --resume\n"},
		{[]string{"--resume", "-"}, "takes no plan file (-)"},
		{[]string{"--plan", "2", "plan.json"}, "planc run: --plan goes with --resume"},
		{[]string{"--resume", "--dry-run"}, "planc run: --resume and --dry-run contradict each other; give one\n"},
		{[]string{"--resume", "--plan", "0"}, "planc run: --plan 0 is not a plan number; plans are numbered from 1\n"},
		{[]string{"--resume", "a", "b"}, "planc run: --resume takes at most one session"},
		{[]string{"--resume", "empty", "--session", "empty"}, "planc run: give the session once: as SESSION or with --session\n"},
		{[]string{"--resume"}, "planc run: nothing to resume: no sessions: "},
		{[]string{"--resume", "nowhere"}, "planc run: no session at nowhere\n"},
		{[]string{"--resume", "empty"}, "planc run: nothing to resume: the session empty has no plan\n"},
		{[]string{"--resume", "--session", "empty", "--plan", "3"}, "planc run: nothing to resume: the session empty has no plan 3 (plans/plan-3.json)\n"},
	} {
		r := planc(t, dir, tc.args...)
		if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("planc run %s: exit %d\n%s\nwant %q", strings.Join(tc.args, " "), r.code, r.stderr, tc.want)
		}
	}
}

// TestResumeBySessionID: SESSION may be a session id under
// .planc/sessions/; the default plan is the session's last.
func TestResumeBySessionID(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "plan.json", toolResumePlan)
	sess := filepath.Join(dir, ".planc", "sessions", "mine")
	for range 2 {
		if r := planc(t, dir, "--session", sess, "plan.json"); r.code != 1 {
			t.Fatalf("first runs: exit %d", r.code)
		}
	}
	testkit.WriteFiles(t, dir, "input.txt", "in")
	r := planc(t, dir, "--resume", "mine")
	if r.code != 0 || !strings.Contains(r.stderr, "resuming plan 2 of the session .planc/sessions/mine\n") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if r := planc(t, dir, "--resume", "mine", "--plan", "1"); r.code != 0 {
		t.Errorf("plan 1: exit %d\n%s", r.code, r.stderr)
	}
}

// TestResumeNewestInSecond: without SESSION, --resume redrives the newest
// session even when an older one made in the same second has a name that
// sorts after it (the names differ only in their random hex): the one its
// session.json says started last (S25), here the plan that failed, not
// the one that completed before it.
func TestResumeNewestInSecond(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "plan.json", toolResumePlan, "input.txt", "in")
	if r := planc(t, dir, "plan.json"); r.code != 0 {
		t.Fatalf("first plan: exit %d\n%s", r.code, r.stderr)
	}
	completed := oneSession(t, dir)
	if err := os.Remove(filepath.Join(dir, "input.txt")); err != nil {
		t.Fatal(err)
	}
	if r := planc(t, dir, "plan.json"); r.code != 1 {
		t.Fatalf("second plan: exit %d\n%s", r.code, r.stderr)
	}
	var failed string
	for _, s := range sessions(t, dir) {
		if s != completed {
			failed = s
		}
	}
	// The same second for both; the older one's name sorts last.
	root := filepath.Dir(completed)
	second, _, _ := strings.Cut(filepath.Base(completed), "-")
	for from, to := range map[string]string{completed: second + "-ffffff", failed: second + "-000000"} {
		if err := os.Rename(from, filepath.Join(root, to)); err != nil {
			t.Fatal(err)
		}
	}
	testkit.WriteFiles(t, dir, "input.txt", "in")
	r := planc(t, dir, "--resume")
	if want := "resuming plan 1 of the session " + filepath.Join(".planc", "sessions", second+"-000000") + "\n"; r.code != 0 || !strings.Contains(r.stderr, want) {
		t.Fatalf("resume: exit %d, want 0 and %q\n%s", r.code, want, r.stderr)
	}
}

// TestResumeChecksLikeRun: a redrive checks the plan again against the
// capsule it is given as a first run does, so a refusal names that
// manifest in its fix.
func TestResumeChecksLikeRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "plan.json", toolResumePlan,
		"less.json", `{"name": "local/less", "version": "1.0.0", "capabilities": {"plan": {"submit": true}}, "tools": {"builtin": ["write-file", "read-file"]}}`)
	if r := planc(t, dir, "plan.json"); r.code != 1 {
		t.Fatalf("first run: exit %d\n%s", r.code, r.stderr)
	}
	r := planc(t, dir, "--resume", "--capsule", "less.json")
	if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, `tool "notes" is not among the tools of less.json`) {
		t.Errorf("resume under a capsule without notes: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}
