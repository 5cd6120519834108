package tracefile_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/internal/sessionfmt"
	"github.com/planc/planc/tracefile"
	"github.com/planc/planc/tracefile/internal/tracetest"
	"github.com/planc/planc/tracefile/traceview"
)

// TestRedriveView: a redrive shows as a run of its own, named with its
// number, its reused steps marked; the notes about skipped lines, of the
// session and of a delegation's, are SkippedLines' (each naming its trace)
// and not in show's notes sections.
func TestRedriveView(t *testing.T) {
	dir := t.TempDir()
	L := func(event string, fields ...any) string {
		return tracetest.Line(tracetest.TS(0), event, sid, fields...)
	}
	trace := L("plan_start", "plan_id", "p", "plan_file", "plans/plan-1.json", "steps", 2, "sha256", "aa") +
		L("plan_step_start", "plan_id", "p", "step_id", "a", "kind", "shell", "attempt", 1) +
		L("plan_step", "plan_id", "p", "step_id", "a", "status", "success", "attempt", 1, "duration_ms", 3, "error", nil) +
		L("plan_step_start", "plan_id", "p", "step_id", "b", "kind", "capsule", "attempt", 1) +
		L("delegation_start", "plan_id", "p", "step_id", "b", "delegation_id", "plan-1-b-1", "capsule", "local/w", "version", "0.1.0", "pid", 7) +
		L("delegation", "plan_id", "p", "step_id", "b", "delegation_id", "plan-1-b-1", "outcome", "failed", "reason", "no") +
		L("plan_step", "plan_id", "p", "step_id", "b", "status", "failed", "attempt", 1, "duration_ms", 3, "error", "no") +
		L("plan_end", "plan_id", "p", "outcome", "failed", "failed_step", "b", "succeeded", 1, "failed", 1, "skipped", 0) +
		L("plan_start", "plan_id", "p", "plan_file", "plans/plan-1.json", "steps", 2, "sha256", "aa", "redrive", 1) +
		L("plan_step", "plan_id", "p", "step_id", "a", "status", "success", "attempt", 1, "duration_ms", 0, "error", nil, "reused", true, "output_bytes", 5) +
		`{"ts":"2025-01-02T15:04:05Z","event":"plan_step_st` + "\n"
	child := L("session_start", "capsule", "local/w", "version", "0.1.0", "spawned_by", sid, "delegation_id", "plan-1-b-1") +
		`{"ts":"2025-01-02T15:04:05Z","event":"plan_st` + L("session_end", "exit_status", "failed")
	tracetest.Write(t, dir, map[string]string{sessionfmt.TraceFile: trace, "delegations/plan-1-b-1/trace.jsonl": child})
	s, err := tracefile.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([][]string{
		{"PLAN", "STEP", "ATTEMPT", "STATUS", "DURATION", "ERROR"},
		{"p (plan-1)", "a", "1", "success", "3ms", ""},
		{"p (plan-1)", "b", "1", "failed", "3ms", "no"},
		{"p (plan-1, redrive 1)", "a", "1", "success (reused)", "-", ""},
	}, traceview.StepRows(s)); d != "" {
		t.Errorf("rows (-want +got):\n%s", d)
	}
	var b strings.Builder
	if err := traceview.WriteShow(&b, s); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "plan p (plan-1, redrive 1) (plans/plan-1.json): no plan_end") || strings.Contains(out, "torn") {
		t.Errorf("show:\n%s", out)
	}
	want := []string{
		filepath.Join(dir, "trace.jsonl") + ": line 11: torn: 50 bytes that do not end as JSON (a write cut short, e.g. by a crash); skipped",
		filepath.Join(dir, "delegations", "plan-1-b-1", "trace.jsonl") + ": line 2: torn: its first 45 bytes are a line whose write was cut short (its writer died mid-write); they are skipped and the line written after them is read",
	}
	if d := cmp.Diff(want, traceview.SkippedLines(s)); d != "" {
		t.Errorf("skipped lines (-want +got):\n%s", d)
	}
}
