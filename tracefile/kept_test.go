package tracefile_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/internal/sessionfmt"
	"github.com/planc/planc/tracefile"
	"github.com/planc/planc/tracefile/internal/tracetest"
	"github.com/planc/planc/tracefile/traceview"
)

// crashedThenRedriven writes a session whose first run died while step
// "b/x\n" (an id unfit for a file name and a terminal) ran, and whose
// redrive reused "a" and ran "b/x\n" again to success. Only the outputs
// of attempts that returned are kept.
func crashedThenRedriven(t *testing.T) string {
	dir := t.TempDir()
	L := func(sec float64, event string, fields ...any) string {
		return tracetest.Line(tracetest.TS(sec), event, sid, fields...)
	}
	const b = "b/x\n"
	trace := L(0, "session_start", "capsule", "local/c", "version", "0.1.0", "spawned_by", nil, "delegation_id", nil) +
		L(0.1, "plan_start", "plan_id", "p", "plan_file", "plans/plan-1.json", "steps", 2, "sha256", "ab") +
		L(0.2, "plan_step_start", "plan_id", "p", "step_id", "a", "kind", "tool", "attempt", 1) +
		L(0.3, "plan_step", "plan_id", "p", "step_id", "a", "status", "success", "attempt", 1, "duration_ms", 7, "error", nil) +
		L(0.4, "plan_step_start", "plan_id", "p", "step_id", b, "kind", "shell", "attempt", 1) +
		// planc died here: no plan_step, plan_end or session_end.
		L(10, "session_start", "capsule", "local/c", "version", "0.1.0", "spawned_by", nil, "delegation_id", nil) +
		L(10.1, "plan_start", "plan_id", "p", "plan_file", "plans/plan-1.json", "steps", 2, "sha256", "ab", "redrive", 1) +
		L(10.1, "plan_step", "plan_id", "p", "step_id", "a", "status", "success", "attempt", 1, "duration_ms", 0, "error", nil, "reused", true, "output_bytes", 3) +
		L(10.2, "plan_step_start", "plan_id", "p", "step_id", b, "kind", "shell", "attempt", 2) +
		L(10.3, "plan_step", "plan_id", "p", "step_id", b, "status", "success", "attempt", 2, "duration_ms", 1500, "error", nil) +
		L(10.4, "plan_end", "plan_id", "p", "outcome", "completed", "failed_step", nil, "succeeded", 2, "failed", 0, "skipped", 0, "redrive", 1) +
		L(10.5, "session_end", "exit_status", "ok")
	tracetest.Write(t, dir, map[string]string{
		sessionfmt.TraceFile:                   trace,
		sessionfmt.OutputPath(1, "a", 1):       "aaa",
		sessionfmt.OutputPath(1, b, 2):         "second try\n",
		sessionfmt.ReportPath(1):               `{"plan_id":"p"}` + "\n",
		sessionfmt.RedriveReportPath(1, 0):     "never read",
		sessionfmt.PlanFile(1):                 `{"id": "p", "steps": [{"id": "a", "tool": "notes"}, {"id": "b/x\n", "shell": "true"}]}`,
		"outputs/plan-1/unrelated.1.txt":       "x",
		"outputs/plan-2/" + "a.1.txt":          "another plan's",
		sessionfmt.OutputPath(1, "a", 2) + "~": "not a kept name",
	})
	return dir
}

// TestStepLogs: a step's dispatched attempts over every run of its plan,
// in attempt order, each with its status, its run and whether its output
// is kept; the attempt planc died in has none, and says why.
func TestStepLogs(t *testing.T) {
	dir := crashedThenRedriven(t)
	s, err := tracefile.OpenTop(dir)
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := s.LastPlan(); !ok || n != 1 || len(s.PlanRuns(1)) != 2 {
		t.Fatalf("LastPlan %d %v, runs %d", n, ok, len(s.PlanRuns(1)))
	}
	l, err := s.StepLogs(1, "b/x\n", true)
	if err != nil {
		t.Fatal(err)
	}
	want := []tracefile.LogAttempt{
		{Attempt: 1, Status: "unsettled", Path: "outputs/plan-1/b%2Fx%0A.1.txt"},
		{Attempt: 2, Redrive: 1, Status: "success", Settled: true, Duration: 1500e6, Path: "outputs/plan-1/b%2Fx%0A.2.txt", Kept: true},
	}
	if d := cmp.Diff(want, l.Attempts); d != "" {
		t.Fatalf("attempts (-want +got):\n%s", d)
	}
	headings := []string{
		`==> b/x\n, attempt 1: unsettled: planc died while it ran; no output kept <==`,
		`==> b/x\n, attempt 2 (redrive 1): success after 1.5s <==`,
	}
	for i, h := range headings {
		if got := l.Attempts[i].Heading(l.StepID); got != h {
			t.Errorf("heading %d: %q, want %q", i+1, got, h)
		}
	}
	if got := l.Attempts[0].Missing(); got != "never ended (planc died while it ran), so its output was not kept" {
		t.Errorf("Missing: %q", got)
	}
	if b, err := os.ReadFile(l.File(&l.Attempts[1])); err != nil || string(b) != "second try\n" {
		t.Errorf("File: %q, %v", b, err)
	}
	if _, err := l.Attempt(3); err == nil || err.Error() != `step "b/x\n" of plan 1 has no attempt 3; its attempts are 1 and 2` {
		t.Errorf("Attempt(3): %v", err)
	}
	// The reused line is no attempt of its own: the output is attempt 1's.
	l, err = s.StepLogs(1, "a", true)
	if err != nil || len(l.Attempts) != 1 || !l.Attempts[0].Kept || l.Attempts[0].Redrive != 0 {
		t.Errorf("StepLogs a: %+v, %v", l, err)
	}
	if _, err := l.Attempt(2); err == nil || !strings.HasSuffix(err.Error(), "has no attempt 2; its only attempt is 1") {
		t.Errorf("Attempt(2): %v", err)
	}
	if got := s.StepIDs(1); !cmp.Equal(got, []string{"a", "b/x\n"}) {
		t.Errorf("StepIDs: %q", got)
	}
}

// TestStepLogsEmpty: an attempt that printed nothing has no kept file,
// only its index line of 0 bytes: it is shown empty, not as missing; an
// attempt with neither file nor index line is still missing.
func TestStepLogsEmpty(t *testing.T) {
	dir := t.TempDir()
	L := func(sec float64, event string, fields ...any) string {
		return tracetest.Line(tracetest.TS(sec), event, sid, fields...)
	}
	trace := L(0, "session_start", "capsule", "local/c", "version", "0.1.0", "spawned_by", nil, "delegation_id", nil) +
		L(0.1, "plan_start", "plan_id", "p", "plan_file", "plans/plan-1.json", "steps", 2, "sha256", "ab") +
		L(0.2, "plan_step_start", "plan_id", "p", "step_id", "q", "kind", "shell", "attempt", 1) +
		L(0.3, "plan_step", "plan_id", "p", "step_id", "q", "status", "success", "attempt", 1, "duration_ms", 7, "error", nil) +
		L(0.4, "plan_step_start", "plan_id", "p", "step_id", "gone", "kind", "shell", "attempt", 1) +
		L(0.5, "plan_step", "plan_id", "p", "step_id", "gone", "status", "success", "attempt", 1, "duration_ms", 7, "error", nil) +
		L(0.6, "plan_end", "plan_id", "p", "outcome", "completed", "failed_step", nil, "succeeded", 2, "failed", 0, "skipped", 0) +
		L(0.7, "session_end", "exit_status", "ok")
	tracetest.Write(t, dir, map[string]string{
		sessionfmt.TraceFile:             trace,
		sessionfmt.PlanFile(1):           `{"id": "p", "steps": [{"id": "q", "shell": "true"}, {"id": "gone", "shell": "true"}]}`,
		sessionfmt.OutputIndexPath(1):    `{"step_id":"q","attempt":1,"bytes":0,"output":""}` + "\n" + `{"step_id":"gone","attempt":1,"bytes":5,"output":"hello"}` + "\n",
		"outputs/plan-1/unrelated.1.txt": "x",
	})
	s, err := tracefile.OpenTop(dir)
	if err != nil {
		t.Fatal(err)
	}
	l, err := s.StepLogs(1, "q", true)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Attempts) != 1 || !l.Attempts[0].Kept || !l.Attempts[0].Empty || l.Attempts[0].Missing() != "" {
		t.Fatalf("attempts %+v", l.Attempts)
	}
	var b strings.Builder
	if err := l.WriteAll(&b, "q"); err != nil || b.String() != "==> q, attempt 1: success after 7ms <==\n" {
		t.Errorf("WriteAll: %q, %v", b.String(), err)
	}
	b.Reset()
	if err := l.WriteAttempt(&b, &l.Attempts[0]); err != nil || b.Len() != 0 {
		t.Errorf("WriteAttempt: %q, %v", b.String(), err)
	}
	// Its index line says 5 bytes: the file is missing, not empty.
	if _, err := s.StepLogs(1, "gone", true); err == nil || !strings.Contains(err.Error(), "is missing") {
		t.Errorf("StepLogs gone: %v", err)
	}
}

// TestStepLogsRefused: each way there is nothing to show is an error that
// says which.
func TestStepLogsRefused(t *testing.T) {
	dir := crashedThenRedriven(t)
	s, err := tracefile.OpenTop(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		n    int
		id   string
		want string
	}{
		{2, "a", `session "` + sid + `" has no plan 2; its plans are 1`},
		{1, "b/x", `plan 1 has no step "b/x"; did you mean "b/x\n"?`},
		{1, "zzzzzzzz", `plan 1 has no step "zzzzzzzz"; planc trace steps lists the steps that ran`},
	} {
		if _, err := s.StepLogs(tt.n, tt.id, false); err == nil || err.Error() != tt.want {
			t.Errorf("StepLogs(%d, %q): %v, want %q", tt.n, tt.id, err, tt.want)
		}
	}
	// A step the plan declares that never ran.
	tracetest.Write(t, dir, map[string]string{sessionfmt.PlanFile(1): `{"id": "p", "steps": [{"id": "a"}, {"id": "b/x\n"}, {"id": "later"}]}`})
	if _, err := s.StepLogs(1, "later", false); err == nil || err.Error() != `step "later" of plan 1 was never dispatched, so it printed nothing: the trace has no line for it (the plan stopped, or was cut short, before it)` {
		t.Errorf("later: %v", err)
	}
	// With the kept outputs gone: what is missing, named.
	if err := os.RemoveAll(filepath.Join(dir, sessionfmt.OutputsDir)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.StepLogs(1, "a", false); err == nil || err.Error() != `no output was kept for step "a" of plan 1: outputs/plan-1/a.1.txt is missing` {
		t.Errorf("a: %v", err)
	}
}

// TestReport: the kept report's bytes as they are, the newest run's.
func TestReport(t *testing.T) {
	dir := crashedThenRedriven(t)
	s, err := tracefile.OpenTop(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, note, err := s.Report(1)
	if err != nil || string(b) != `{"plan_id":"p"}`+"\n" || note != "" {
		t.Errorf("Report: %q, %q, %v", b, note, err)
	}
	os.Remove(filepath.Join(dir, sessionfmt.ReportPath(1)))
	if _, _, err := s.Report(1); err == nil || err.Error() != "no report was kept for plan 1: reports/plan-1.json is missing" {
		t.Errorf("Report without the file: %v", err)
	}
}

// TestListSessions: newest first, by name; a missing root holds none.
func TestListSessions(t *testing.T) {
	root := t.TempDir()
	if list, err := traceview.ListSessions(filepath.Join(root, "none")); err != nil || list != nil {
		t.Errorf("missing root: %v, %v", list, err)
	}
	L := func(id, event string, fields ...any) string {
		return tracetest.Line(tracetest.TS(0), event, id, fields...)
	}
	tracetest.Write(t, root, map[string]string{
		"20250101T000000Z-000001/trace.jsonl": L("20250101T000000Z-000001", "plan_start", "plan_id", "old", "plan_file", "plans/plan-1.json", "steps", 1),
		"20250102T000000Z-000002/trace.jsonl": L("20250102T000000Z-000002", "plan_start", "plan_id", "x", "plan_file", "plans/plan-1.json", "steps", 1) +
			L("20250102T000000Z-000002", "plan_end", "plan_id", "x", "outcome", "canceled", "failed_step", nil, "succeeded", 0, "failed", 0, "skipped", 1) +
			// Lines of a run whose plan_start was lost: an entry of their own.
			L("20250102T000000Z-000002", "plan_step", "plan_id", "x", "step_id", "s", "status", "success", "attempt", 2, "duration_ms", 1, "error", nil) +
			L("20250102T000000Z-000002", "plan_start", "plan_id", "y", "plan_file", "plans/plan-2.json", "steps", 3, "redrive", 2) +
			L("20250102T000000Z-000002", "plan_end", "plan_id", "y", "outcome", "failed", "failed_step", "s", "succeeded", 0, "failed", 1, "skipped", 0, "redrive", 2),
		"empty/readme": "not a session",
	})
	list, err := traceview.ListSessions(root)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Session, PlanID, Outcome string
		Redrives                 int
	}
	var got []row
	for _, s := range list {
		for _, p := range s.Plans {
			got = append(got, row{s.Session, p.PlanID, p.Outcome, p.Redrives})
		}
	}
	want := []row{
		{"20250102T000000Z-000002", "x", "canceled", 0},
		{"20250102T000000Z-000002", "y", "failed", 2},     // redrive 2 recorded, its earlier runs not
		{"20250102T000000Z-000002", "x", "unfinished", 0}, // lines without their plan_start
		{"20250101T000000Z-000001", "old", "unfinished", 0},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestShowDenials: a call_denied line keeps its hook 0, which is not
// "no hook".
func TestShowDenials(t *testing.T) {
	s := tracetest.FromText(t, tracetest.Line(tracetest.TS(0), "plan_start", sid, "plan_id", "p", "plan_file", "plans/plan-1.json", "steps", 1)+
		tracetest.Line(tracetest.TS(1), "call_denied", sid, "plan_id", "p", "step_id", "w", "hook", 0, "on", "on-shell"))
	d := traceview.Show(s).Plans[0].Denials
	if len(d) != 1 || d[0].Hook == nil || *d[0].Hook != 0 || *d[0].On != "on-shell" || d[0].Path != nil {
		t.Errorf("denials %+v", d)
	}
}

// TestStepLogsOtherPlan: without --plan, a step the last plan lacks but an
// earlier plan has is pointed to there, even when the last plan has a step
// of a near name.
func TestStepLogsOtherPlan(t *testing.T) {
	dir := t.TempDir()
	L := func(sec float64, event string, fields ...any) string {
		return tracetest.Line(tracetest.TS(sec), event, sid, fields...)
	}
	tracetest.Write(t, dir, map[string]string{
		sessionfmt.TraceFile: L(0, "plan_start", "plan_id", "one", "plan_file", "plans/plan-1.json", "steps", 2) +
			L(0.1, "plan_end", "plan_id", "one", "outcome", "completed", "failed_step", nil, "succeeded", 0, "failed", 0, "skipped", 0) +
			L(1, "plan_start", "plan_id", "two", "plan_file", "plans/plan-2.json", "steps", 1) +
			L(1.1, "plan_end", "plan_id", "two", "outcome", "completed", "failed_step", nil, "succeeded", 0, "failed", 0, "skipped", 0),
		sessionfmt.PlanFile(1): `{"id": "one", "steps": [{"id": "a", "tool": "notes"}, {"id": "b", "tool": "notes"}]}`,
		sessionfmt.PlanFile(2): `{"id": "two", "steps": [{"id": "a", "tool": "notes"}]}`,
	})
	s, err := tracefile.OpenTop(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.StepLogs(2, "b", true); err == nil || err.Error() != `plan 2 has no step "b" (the session's last plan); plan 1 has it: add --plan 1` {
		t.Errorf("StepLogs(2, b): %v", err)
	}
	if _, err := s.StepLogs(2, "b", false); err == nil || err.Error() != `plan 2 has no step "b"; did you mean "a"?` {
		t.Errorf("StepLogs(2, b) with --plan: %v", err)
	}
}
