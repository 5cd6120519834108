package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/host/session"
	"github.com/planc/planc/internal/sessionfmt"
	"github.com/planc/planc/internal/testkit"
)

const (
	keptID = "20250103T100000Z-c0ffee"
	oldID  = "20241231T235959Z-0a0a0a"
	sumOne = "5f1c8d0e4b7a9c2d3e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5"
)

// The kept reports of keptSession's plan 1: its redrive's, and its first
// run's, moved aside.
const (
	keptReport = `{
  "plan_id": "build",
  "completed": true,
  "canceled": false,
  "failed_step": null,
  "steps": [
    {"step_id": "fetch", "status": "success", "output": "fetched 3 modules\n", "error": null}
  ]
}
`
	firstReport = `{"plan_id":"build","completed":false,"canceled":false,"failed_step":"test","steps":[]}`
)

// keptSession writes by hand a session as a planc that keeps results
// leaves it (S24, S28): plan 1, "build", fails at step "test" after two
// attempts, and its redrive reuses "fetch" and completes with test's
// third attempt; plan 2, "deploy", has its step "ship" dispatched when
// the trace stops (planc died, unless the test holds the plan's lock:
// holdPlan), and a torn last line. Its outputs and
// reports are at sessionfmt.OutputPath and ReportPath. It returns the
// session directory, made under root.
func keptSession(t *testing.T, root string) string {
	dir := filepath.Join(root, keptID)
	P := func(sec float64, event string, fields ...any) string {
		return traceLine(sec, event, keptID, fields...)
	}
	start := func(sec float64, step, kind string, attempt int) string {
		return P(sec, "plan_step_start", "plan_id", "build", "step_id", step, "kind", kind, "attempt", attempt)
	}
	settle := func(sec float64, step, status string, attempt, ms int, errText any) string {
		return P(sec, "plan_step", "plan_id", "build", "step_id", step, "status", status, "attempt", attempt, "duration_ms", ms, "error", errText)
	}
	trace := P(0, "session_start", "capsule", "local/ci", "version", "0.2.0", "spawned_by", nil, "delegation_id", nil) +
		P(0.1, "plan_start", "plan_id", "build", "plan_file", "plans/plan-1.json", "steps", 4, "sha256", sumOne) +
		start(0.2, "fetch", "shell", 1) + settle(0.5, "fetch", "success", 1, 300, nil) +
		start(0.6, "test", "shell", 1) + settle(1.8, "test", "failed", 1, 1200, "exit status 1") +
		start(1.9, "test", "shell", 2) + settle(3.2, "test", "failed", 2, 1300, "exit status 1") +
		settle(3.3, "docs", "skipped", 0, 0, nil) + settle(3.3, "notify", "skipped", 0, 0, nil) +
		P(3.4, "plan_end", "plan_id", "build", "outcome", "failed", "failed_step", "test", "succeeded", 1, "failed", 1, "skipped", 2) +
		P(3.5, "session_end", "exit_status", "failed") +
		P(10, "session_start", "capsule", "local/ci", "version", "0.2.0", "spawned_by", nil, "delegation_id", nil) +
		P(10.1, "plan_start", "plan_id", "build", "plan_file", "plans/plan-1.json", "steps", 4, "sha256", sumOne, "redrive", 1) +
		P(10.1, "plan_step", "plan_id", "build", "step_id", "fetch", "status", "success", "attempt", 1, "duration_ms", 0, "error", nil, "reused", true, "output_bytes", 18) +
		start(10.2, "test", "shell", 3) + settle(11.1, "test", "success", 3, 900, nil) +
		start(11.2, "docs", "tool", 1) + settle(11.2, "docs", "success", 1, 4, nil) +
		settle(11.3, "notify", "skipped", 0, 0, nil) +
		P(11.4, "plan_end", "plan_id", "build", "outcome", "completed", "failed_step", nil, "succeeded", 3, "failed", 0, "skipped", 1, "redrive", 1) +
		P(11.5, "session_end", "exit_status", "ok") +
		P(20, "session_start", "capsule", "local/ci", "version", "0.2.0", "spawned_by", nil, "delegation_id", nil) +
		P(20.1, "plan_start", "plan_id", "deploy", "plan_file", "plans/plan-2.json", "steps", 1, "sha256", sumOne) +
		P(20.2, "plan_step_start", "plan_id", "deploy", "step_id", "ship", "kind", "shell", "attempt", 1) +
		`{"ts":"2025-01-02T15:04:25.3`
	testkit.WriteFiles(t, dir,
		"session.json", `{"session":"`+keptID+`","capsule":"local/ci","version":"0.2.0","started":"2025-01-02T15:04:05Z","spawned_by":null,"delegation_id":null}`+"\n",
		"trace.jsonl", trace,
		"plans/plan-1.json", `{"id": "build", "steps": [{"id": "fetch", "shell": "go mod download"}, {"id": "test", "shell": "go test ./...", "retries": 1}, {"id": "docs", "tool": "notes", "input": {"body": "x"}}, {"id": "notify", "tool": "notes", "if": "false", "input": {"body": "y"}}]}`,
		"plans/plan-2.json", `{"id": "deploy", "steps": [{"id": "ship", "shell": "sleep 600"}]}`,
		sessionfmt.OutputPath(1, "fetch", 1), "fetched 3 modules\n",
		sessionfmt.OutputPath(1, "test", 1), "--- FAIL: TestA\nFAIL\n",
		sessionfmt.OutputPath(1, "test", 2), "--- FAIL: TestA (flaky)",
		sessionfmt.OutputPath(1, "test", 3), "ok  \texample.com/m\t0.9s\n",
		sessionfmt.OutputPath(1, "docs", 1), "",
		sessionfmt.ReportPath(1), keptReport,
		sessionfmt.RedriveReportPath(1, 0), firstReport,
	)
	return dir
}

// holdPlan holds the lock of plan n of the session in dir until t ends,
// as the planc running it would (S27): its attempts without a plan_step
// are running, not left unsettled by a planc that died.
func holdPlan(t *testing.T, dir string, n int) {
	t.Helper()
	lock, err := (&session.Session{Dir: dir}).LockPlan(n, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lock.Unlock() })
}

// oldSession writes a session from before planc kept results: a plan
// that ran one step, with no sha256 and no outputs/ or reports/.
func oldSession(t *testing.T, root string) string {
	dir := filepath.Join(root, oldID)
	P := func(sec float64, event string, fields ...any) string {
		return traceLine(sec, event, oldID, fields...)
	}
	testkit.WriteFiles(t, dir, "trace.jsonl",
		P(0, "session_start", "capsule", "local/planc", "version", "0.1.0", "spawned_by", nil, "delegation_id", nil)+
			P(0.1, "plan_start", "plan_id", "hello", "plan_file", "plans/plan-1.json", "steps", 1)+
			P(0.2, "plan_step_start", "plan_id", "hello", "step_id", "list", "kind", "tool", "attempt", 1)+
			P(0.3, "plan_step", "plan_id", "hello", "step_id", "list", "status", "success", "attempt", 1, "duration_ms", 2, "error", nil)+
			P(0.4, "plan_end", "plan_id", "hello", "outcome", "completed", "failed_step", nil, "succeeded", 1, "failed", 0, "skipped", 0)+
			P(0.5, "session_end", "exit_status", "ok"))
	return dir
}

// tornNote is the note `planc trace` writes for keptSession's torn last
// line, naming the session as the command line did.
func tornNote(dir string) string {
	return "planc trace: note: " + filepath.Join(dir, "trace.jsonl") + ": line 26: the last line is cut short (the trace was still being written, or its writer died); left out\n"
}

const wantLogsTest = `==> test, attempt 1: failed after 1.2s: exit status 1 <==
--- FAIL: TestA
FAIL

==> test, attempt 2: failed after 1.3s: exit status 1 <==
--- FAIL: TestA (flaky)

==> test, attempt 3 (redrive 1): success after 900ms <==
ok  	example.com/m	0.9s
`

func TestTraceLogs(t *testing.T) {
	root := inTempDir(t, nil)
	dir := keptSession(t, filepath.Join(root, ".planc", "sessions"))
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"all attempts", []string{dir, "test", "--plan", "1"}, wantLogsTest},
		{"through the trace file", []string{filepath.Join(dir, "trace.jsonl"), "--plan=1", "test"}, wantLogsTest},
		{"one attempt, exactly as kept", []string{dir, "test", "--plan", "1", "--attempt", "2"}, "--- FAIL: TestA (flaky)"},
		{"an empty output", []string{"--plan", "1", "docs"}, "==> docs, attempt 1 (redrive 1): success after 4ms <==\n"},
		{"the newest session by default", []string{"fetch", "--plan", "1"}, "==> fetch, attempt 1: success after 300ms <==\nfetched 3 modules\n"},
		{"a session id, as planc trace list shows it", []string{keptID, "test", "--plan", "1"}, wantLogsTest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := run(t, "", append([]string{"trace", "logs"}, tt.args...)...)
			note := tornNote(filepath.Join(".planc", "sessions", keptID)) // the newest session
			if strings.HasPrefix(tt.args[0], dir) {
				note = tornNote(dir)
			}
			if got.Code != 0 || got.Stderr != note {
				t.Fatalf("exit %d, stderr %q", got.Code, got.Stderr)
			}
			if d := cmp.Diff(tt.want, got.Stdout); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestTraceLogsRefused(t *testing.T) {
	root := inTempDir(t, nil)
	sessions := filepath.Join(root, ".planc", "sessions")
	dir := keptSession(t, sessions)
	old := oldSession(t, sessions)
	lock, err := (&session.Session{Dir: dir}).LockPlan(2, false) // plan 2's planc runs
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"a step of another plan", []string{"test"},
			`plan 2 has no step "test" (the session's last plan); plan 1 has it: add --plan 1`},
		{"a misspelt step", []string{dir, "tset", "--plan", "1"}, `plan 1 has no step "tset"; did you mean "test"?`},
		{"a step nowhere", []string{dir, "zzzzzz"}, `plan 2 has no step "zzzzzz"; planc trace steps lists the steps that ran`},
		{"a session given as the step", []string{dir}, `plan 2 has no step "` + dir + `"; planc trace steps lists the steps that ran (` + dir + ` is a path: to read that session, name the step after it)`},
		{"no such plan", []string{dir, "test", "--plan", "3"}, `session "` + keptID + `" has no plan 3; its plans are 1 and 2`},
		{"no such attempt", []string{dir, "test", "--plan", "1", "--attempt", "4"}, `step "test" of plan 1 has no attempt 4; its attempts are 1, 2 and 3`},
		{"never dispatched", []string{dir, "notify", "--plan", "1"},
			`step "notify" of plan 1 was never dispatched, so it printed nothing: it settled skipped without running`},
		{"still running or died", []string{dir, "ship"},
			`no output was kept for step "ship" of plan 2: attempt 1 is still running: its output is kept when it ends`},
		{"the attempt still running", []string{dir, "ship", "--attempt", "1"},
			`no output was kept for step "ship" of plan 2: attempt 1 is still running`},
		{"a session from before kept results", []string{old, "list"},
			`no output was kept for step "list" of plan 1: the session is from before planc kept step outputs (its plan_start records no sha256)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := run(t, "", append([]string{"trace", "logs"}, tt.args...)...)
			if got.Code != 2 || got.Stdout != "" || !strings.Contains(got.Stderr, "planc trace: "+tt.want) {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 2 and %q", got.Code, got.Stdout, got.Stderr, tt.want)
			}
		})
	}
	// Once no planc holds the plan's lock, its planc died: the attempt
	// will never end (S27), in the error and in trace steps.
	lock.Unlock()
	if got := run(t, "", "trace", "logs", dir, "ship"); got.Code != 2 ||
		!strings.Contains(got.Stderr, `planc trace: no output was kept for step "ship" of plan 2: attempt 1 never ended (planc died while it ran), so its output was not kept`) {
		t.Errorf("ship, its planc gone: exit %d, stderr:\n%s", got.Code, got.Stderr)
	}
	if got := run(t, "", "trace", "steps", dir); !regexp.MustCompile(`(?m)^deploy +ship +1 +unsettled +- *$`).MatchString(got.Stdout) {
		t.Errorf("trace steps, its planc gone:\n%s", got.Stdout)
	}
	// A kept output gone missing: its heading says so; with none left at
	// all, nothing is shown.
	if err := os.Remove(filepath.Join(dir, sessionfmt.OutputPath(1, "test", 2))); err != nil {
		t.Fatal(err)
	}
	got := run(t, "", "trace", "logs", dir, "test", "--plan", "1")
	if got.Code != 0 || !strings.Contains(got.Stdout, "\n\n==> test, attempt 2: failed after 1.3s: exit status 1; no output kept <==\n\n==> test, attempt 3") {
		t.Errorf("exit %d, stdout:\n%s", got.Code, got.Stdout)
	}
	os.RemoveAll(filepath.Join(dir, "outputs"))
	got = run(t, "", "trace", "logs", dir, "test", "--plan", "1")
	if want := `planc trace: no output was kept for step "test" of plan 1: outputs/plan-1/test.1.txt is missing`; got.Code != 2 || !strings.Contains(got.Stderr, want) {
		t.Errorf("exit %d, stderr %q, want %q", got.Code, got.Stderr, want)
	}
}

func TestTraceReport(t *testing.T) {
	root := inTempDir(t, nil)
	sessions := filepath.Join(root, ".planc", "sessions")
	dir := keptSession(t, sessions)
	old := oldSession(t, sessions)
	for _, format := range [][]string{nil, {"--format", "json"}, {"--format=text"}} {
		// The report is JSON: --format json (or text) prints it the same.
		got := run(t, "", append([]string{"trace", "report", "--plan", "1"}, format...)...)
		if got.Code != 0 || got.Stdout != keptReport || got.Stderr != tornNote(filepath.Join(".planc", "sessions", keptID)) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", format, got.Code, got.Stdout, got.Stderr)
		}
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{dir}, "planc trace: plan 2 has no report yet: its run has no plan_end (still running, or planc died; planc run --resume redrives it)\n"},
		{[]string{old}, "planc trace: no report was kept for plan 1: the session is from before planc kept reports (its plan_start records no sha256)\n"},
		{[]string{old, "--plan", "2"}, `planc trace: session "` + oldID + `" has no plan 2; its plans are 1` + "\n"},
	} {
		got := run(t, "", append([]string{"trace", "report"}, tt.args...)...)
		if got.Code != 2 || got.Stdout != "" || !strings.HasSuffix(got.Stderr, tt.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %q", tt.args, got.Code, got.Stdout, got.Stderr, tt.want)
		}
	}
	// A redrive running (or cut short) while an earlier run's report is
	// kept: that report, with a note.
	testkit.WriteFiles(t, dir, sessionfmt.ReportPath(2), `{"plan_id":"deploy"}`)
	got := run(t, "", "trace", "report", dir)
	if got.Code != 0 || got.Stdout != `{"plan_id":"deploy"}` || !strings.Contains(got.Stderr, "planc trace: note: plan 2's last run has no plan_end (still running, or planc died): this report is an earlier run's\n") {
		t.Errorf("exit %d, stdout %q, stderr %q", got.Code, got.Stdout, got.Stderr)
	}
}

// TestTraceKeptBinary: the planc binary writes a kept output and a kept
// report byte for byte, and exits 2 with its message for what is not
// there.
func TestTraceKeptBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the planc binary; skipped with -short")
	}
	root := t.TempDir()
	dir := keptSession(t, filepath.Join(root, ".planc", "sessions"))
	for _, tt := range []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"logs", "test", "--plan", "1", "--attempt", "3"}, 0, "ok  \texample.com/m\t0.9s\n", tornNote(dir)},
		{[]string{"report", "--plan", "1"}, 0, keptReport, tornNote(dir)},
		{[]string{"logs", "tset", "--plan", "1"}, 2, "", tornNote(dir) + `planc trace: plan 1 has no step "tset"; did you mean "test"?` + "\n"},
	} {
		got := plancTrace(t, root, tt.args...)
		// The binary names the session relative to its directory.
		wantErr := strings.ReplaceAll(tt.stderr, root+string(filepath.Separator), "")
		if got.code != tt.code || got.stdout != tt.stdout || got.stderr != wantErr {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %d, %q, %q", tt.args, got.code, got.stdout, got.stderr, tt.code, tt.stdout, wantErr)
		}
	}
}

// plancTrace runs the planc binary's trace command in dir, killed after a
// minute at most.
func plancTrace(t *testing.T, dir string, args ...string) runOut {
	t.Helper()
	so, se, code := testkit.RunCmd(t, testkit.PlancCmd(t, dir, "trace", args...))
	return runOut{so, se, code}
}
