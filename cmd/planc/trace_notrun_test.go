package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/planc/planc/internal/testkit"
)

// TestTraceNotRun: a plan stopped by a failure leaves steps that never
// ran; trace steps and show list them as "not run" (as the live view
// counted them), show's counts say how many, and trace logs says the
// trace has no line for one.
func TestTraceNotRun(t *testing.T) {
	const id = "20250106T000000Z-0b0b0b"
	dir := filepath.Join(t.TempDir(), id)
	P := func(event string, fields ...any) string { return traceLine(0, event, id, fields...) }
	testkit.WriteFiles(t, dir,
		"plans/plan-1.json", `{"id": "stop", "steps": [{"id": "a", "tool": "notes"}, {"id": "b", "tool": "notes", "depends_on": ["a"]}, {"id": "c", "tool": "notes", "depends_on": ["b"]}]}`,
		"trace.jsonl", P("session_start", "capsule", "local/planc", "version", "0.1.0", "spawned_by", nil, "delegation_id", nil)+
			P("plan_start", "plan_id", "stop", "plan_file", "plans/plan-1.json", "steps", 3)+
			P("plan_step_start", "plan_id", "stop", "step_id", "a", "kind", "tool", "attempt", 1)+
			P("plan_step", "plan_id", "stop", "step_id", "a", "status", "failed", "attempt", 1, "duration_ms", 1, "error", "boom")+
			P("plan_end", "plan_id", "stop", "outcome", "failed", "failed_step", "a", "succeeded", 0, "failed", 1, "skipped", 0)+
			P("session_end", "exit_status", "failed"))

	got := run(t, "", "trace", "steps", dir)
	want := "PLAN  STEP  ATTEMPT  STATUS   DURATION  ERROR\nstop  a     1        failed   1ms       boom\nstop  b     -        not run  -\nstop  c     -        not run  -\n"
	if got.Code != 0 || got.Stdout != want {
		t.Errorf("trace steps: exit %d, stderr %q\n got:\n%s want:\n%s", got.Code, got.Stderr, got.Stdout, want)
	}
	got = run(t, "", "trace", "show", dir)
	if got.Code != 0 || !strings.Contains(got.Stdout, "0 succeeded, 1 failed, 0 skipped, 2 not run\n") || strings.Count(got.Stdout, "not run  -") != 2 {
		t.Errorf("trace show: exit %d\n%s", got.Code, got.Stdout)
	}
	got = run(t, "", "trace", "steps", "--format", "json", dir)
	if got.Code != 0 || strings.Count(got.Stdout, `"status":"not run"`) != 2 {
		t.Errorf("trace steps --format json: exit %d\n%s", got.Code, got.Stdout)
	}
	got = run(t, "", "trace", "logs", dir, "b")
	if got.Code != 2 || !strings.Contains(got.Stderr, "the trace has no line for it") {
		t.Errorf("trace logs b: exit %d, stderr %q", got.Code, got.Stderr)
	}
}
