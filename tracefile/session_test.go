package tracefile_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/tracefile"
	"github.com/planc/planc/tracefile/internal/tracetest"
	"github.com/planc/planc/tracefile/traceview"
)

func TestStepRows(t *testing.T) {
	s := tracetest.FromText(t, showTrace())
	want := [][]string{
		{"PLAN", "STEP", "ATTEMPT", "STATUS", "DURATION", "ERROR"},
		{"p", "a", "1", "failed", "100ms", "exit status 1"},
		{"p", "a", "2", "success", "100ms", ""},
		{"p", "b", "-", "skipped", "-", ""},
		{"p", "c", "1", "success", "200ms", ""},
	}
	if d := cmp.Diff(want, traceview.StepRows(s)); d != "" {
		t.Errorf("rows (-want +got):\n%s", d)
	}
	if st, ok := s.ExitStatus(); st != "ok" || !ok {
		t.Errorf("exit status %q %v", st, ok)
	}
	if len(s.Delegations) != 1 || s.Delegations[0].Outcome != "completed" || s.Delegations[0].PID != 42 {
		t.Errorf("delegations: %+v", s.Delegations)
	}
}

// TestStepRowsUnsettled: a dispatch without its plan_step is running while
// the plan and session go on, and unsettled once either has ended.
func TestStepRowsUnsettled(t *testing.T) {
	head := tracetest.Line(tracetest.TS(0), "session_start", sid, "capsule", "c/c", "version", "0.1.0", "spawned_by", nil, "delegation_id", nil) +
		tracetest.Line(tracetest.TS(1), "plan_start", sid, "plan_id", "p", "plan_file", "plans/plan-1.json", "steps", 1) +
		tracetest.Line(tracetest.TS(2), "plan_step_start", sid, "plan_id", "p", "step_id", "a", "kind", "tool", "attempt", 1)
	for _, tt := range []struct {
		tail, status string
	}{
		{"", "running"},
		{tracetest.Line(tracetest.TS(3), "plan_end", sid, "plan_id", "p", "outcome", "canceled", "failed_step", nil, "succeeded", 0, "failed", 0, "skipped", 0), "unsettled"},
		{tracetest.Line(tracetest.TS(3), "session_end", sid, "exit_status", "failed"), "unsettled"},
		{tracetest.Line(tracetest.TS(3), "spawner_ended", sid), "unsettled"},
	} {
		rows := traceview.StepRows(tracetest.FromText(t, head+tt.tail))
		if got := rows[1][3]; got != tt.status {
			t.Errorf("after %q: status %q, want %q", tt.tail, got, tt.status)
		}
	}
}

// TestFromEventsOddOrders: lines the runtime would not write in that order
// are still placed, with notes.
func TestFromEventsOddOrders(t *testing.T) {
	src := tracetest.Line(tracetest.TS(0), "session_end", sid, "exit_status", "ok") +
		tracetest.Line(tracetest.TS(1), "session_start", sid, "capsule", "c/c", "version", "0.1.0", "spawned_by", nil, "delegation_id", nil) +
		tracetest.Line(tracetest.TS(2), "plan_step", sid, "plan_id", "ghost", "step_id", "a", "status", "success", "attempt", 1, "duration_ms", 5, "error", nil) +
		tracetest.Line(tracetest.TS(3), "plan_start", sid, "plan_id", "p", "plan_file", "plans/plan-1.json", "steps", 1) +
		tracetest.Line(tracetest.TS(4), "plan_end", sid, "plan_id", "p", "outcome", "completed", "failed_step", nil, "succeeded", 0, "failed", 0, "skipped", 0) +
		tracetest.Line(tracetest.TS(5), "plan_start", sid, "plan_id", "p", "plan_file", "plans/plan-2.json", "steps", 1) +
		tracetest.Line(tracetest.TS(6), "delegation", sid, "plan_id", "p", "step_id", "x", "delegation_id", "d", "outcome", "failed", "reason", "boom") +
		tracetest.Line(tracetest.TS(7), "delegation", sid, "plan_id", "p", "step_id", "x", "delegation_id", "d", "outcome", "failed", "reason", "boom") +
		tracetest.Line(tracetest.TS(8), "protected_path_denied", sid, "plan_id", "p", "step_id", "w", "path", "src/a") +
		tracetest.Line(tracetest.TS(9), "task_end", sid, "task_id", "t", "outcome", "canceled")
	s := tracetest.FromText(t, src)
	wantNotes := []string{
		"line 1: session_end without a session_start before it",
		`line 3: plan_step for plan "ghost", which has no open plan_start; shown under a plan of its own`,
		`line 3: plan_step for step "a" attempt 1, which has no plan_step_start`,
		`line 8: a second delegation line for "d"`,
	}
	if d := cmp.Diff(wantNotes, notes(s.Notes)); d != "" {
		t.Errorf("notes (-want +got):\n%s", d)
	}
	var labels []string
	for _, p := range s.Plans {
		labels = append(labels, p.Label)
	}
	if d := cmp.Diff([]string{"ghost", "p (plan-1)", "p (plan-2)"}, labels); d != "" {
		t.Errorf("plan labels (-want +got):\n%s", d)
	}
	if len(s.Runs) != 2 || len(s.Plans[2].Denials) != 1 || len(s.Tasks) != 1 || s.Tasks[0].Canceled {
		t.Errorf("runs %d, denials %v, tasks %+v", len(s.Runs), s.Plans[2].Denials, s.Tasks)
	}
	if st, ok := s.ExitStatus(); ok {
		t.Errorf("the last run has no session_end, yet exit status %q", st)
	}
}

// TestFromEventsRedriveAfterDeath: a redrive of a plan whose planc died
// (S27) starts it again with no plan_end before: the trace is as the
// runtime writes it, so no note; the same restart without "redrive" is
// still noted.
func TestFromEventsRedriveAfterDeath(t *testing.T) {
	l := func(ts float64, event string, kv ...any) string {
		return tracetest.Line(tracetest.TS(ts), event, sid, append([]any{"plan", 1}, kv...)...)
	}
	start := l(0, "session_start", "capsule", "c/c", "version", "0.1.0", "spawned_by", nil, "delegation_id", nil) +
		l(1, "plan_start", "plan_id", "p", "plan_file", "plans/plan-1.json", "steps", 1, "sha256", "ab") +
		l(2, "plan_step_start", "plan_id", "p", "step_id", "a", "kind", "shell", "attempt", 1) +
		l(3, "session_start", "capsule", "c/c", "version", "0.1.0", "spawned_by", nil, "delegation_id", nil)
	for _, tt := range []struct {
		redrive []any
		want    []string
	}{
		{[]any{"redrive", 1}, []string{}},
		{nil, []string{`line 5: plan "p" starts again before its plan_end`}},
	} {
		src := start + l(4, "plan_start", append([]any{"plan_id", "p", "plan_file", "plans/plan-1.json", "steps", 1, "sha256", "ab"}, tt.redrive...)...) +
			l(5, "plan_step_start", "plan_id", "p", "step_id", "a", "kind", "shell", "attempt", 2)
		s := tracetest.FromText(t, src)
		if d := cmp.Diff(tt.want, notes(s.Notes)); d != "" {
			t.Errorf("with %v, notes (-want +got):\n%s", tt.redrive, d)
		}
	}
}

// TestFromEventsSharedRuns: two runs share the session and write at once,
// plans with the same id; their lines carry their plan numbers, so each
// plan gets its own lines and each session_end its own session_start, in
// whatever order they came. A sub-capsule's session_start, written before
// its plan was numbered, is closed by its numbered session_end.
func TestFromEventsSharedRuns(t *testing.T) {
	l := func(ts float64, event string, plan int, kv ...any) string {
		return tracetest.Line(tracetest.TS(ts), event, sid, append([]any{"plan", plan}, kv...)...)
	}
	start := func(ts float64, plan int) string {
		return l(ts, "session_start", plan, "capsule", "c/c", "version", "0.1.0", "spawned_by", nil, "delegation_id", nil)
	}
	src := start(0, 1) + start(1, 2) +
		l(2, "plan_start", 1, "plan_id", "twin", "plan_file", "plans/plan-1.json", "steps", 1) +
		l(3, "plan_start", 2, "plan_id", "twin", "plan_file", "plans/plan-2.json", "steps", 1) +
		l(4, "plan_step_start", 1, "plan_id", "twin", "step_id", "a", "kind", "shell", "attempt", 1) +
		l(5, "plan_step_start", 2, "plan_id", "twin", "step_id", "a", "kind", "shell", "attempt", 1) +
		l(6, "plan_step", 2, "plan_id", "twin", "step_id", "a", "status", "failed", "attempt", 1, "duration_ms", 1, "error", "x") +
		l(7, "plan_end", 2, "plan_id", "twin", "outcome", "failed", "failed_step", "a", "succeeded", 0, "failed", 1, "skipped", 0) +
		l(8, "session_end", 2, "exit_status", "failed") +
		l(9, "plan_step", 1, "plan_id", "twin", "step_id", "a", "status", "success", "attempt", 1, "duration_ms", 3, "error", nil) +
		l(10, "plan_end", 1, "plan_id", "twin", "outcome", "completed", "failed_step", nil, "succeeded", 1, "failed", 0, "skipped", 0) +
		l(11, "session_end", 1, "exit_status", "ok")
	s := tracetest.FromText(t, src)
	if len(s.Notes) != 0 {
		t.Errorf("notes: %v", notes(s.Notes))
	}
	var got []string
	for _, p := range s.Plans {
		for _, a := range p.Attempts {
			got = append(got, fmt.Sprintf("%s %s %s ended=%v %s", p.Label, a.StepID, a.Status, p.Ended, p.Outcome))
		}
	}
	want := []string{"twin (plan-1) a success ended=true completed", "twin (plan-2) a failed ended=true failed"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("plans (-want +got):\n%s", d)
	}
	if len(s.Runs) != 2 || s.Runs[0].ExitStatus != "ok" || s.Runs[1].ExitStatus != "failed" {
		t.Errorf("runs %+v: each session_end closes its own run", s.Runs)
	}

	// A sub-capsule's session begins before its plan has a number.
	child := tracetest.Line(tracetest.TS(0), "session_start", sid, "capsule", "c/c", "version", "0.1.0", "spawned_by", "parent", "delegation_id", "d") +
		l(1, "plan_start", 1, "plan_id", "p", "plan_file", "plans/plan-1.json", "steps", 0) +
		l(2, "plan_end", 1, "plan_id", "p", "outcome", "completed", "failed_step", nil, "succeeded", 0, "failed", 0, "skipped", 0) +
		l(3, "session_end", 1, "exit_status", "ok")
	s = tracetest.FromText(t, child)
	if st, ok := s.ExitStatus(); len(s.Notes) != 0 || len(s.Runs) != 1 || !ok || st != "ok" {
		t.Errorf("child: notes %v, runs %+v", notes(s.Notes), s.Runs)
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := tracefile.Open(filepath.Join(dir, "missing")); err == nil {
		t.Error("missing path: no error")
	}
	if _, err := tracefile.Open(dir); err == nil || !strings.Contains(err.Error(), "not a session directory") {
		t.Errorf("empty directory: %v", err)
	}
	// session.json alone is a session with a note.
	tracetest.Write(t, dir, map[string]string{"session.json": tracetest.SessionJSON(sid, "local/planner", "", "")})
	s, err := tracefile.Open(dir)
	if err != nil || s.ID != sid || len(s.Notes) != 1 || !strings.HasPrefix(s.Notes[0].Text, "no trace: ") {
		t.Errorf("session.json only: %v %+v", err, s)
	}
}

// TestOpenDelegations follows delegations into their directories: a child
// and grandchild, a missing directory, a delegation id that would leave
// delegations/, a directory the trace does not name, completion.json.
func TestOpenDelegations(t *testing.T) {
	dir := t.TempDir()
	child, grand := "20250102T150406Z-child0", "20250102T150407Z-grand0"
	start := func(id string, ds ...string) string {
		var b strings.Builder
		b.WriteString(tracetest.Line(tracetest.TS(0), "session_start", id, "capsule", "local/x", "version", "0.1.0", "spawned_by", nil, "delegation_id", nil))
		b.WriteString(tracetest.Line(tracetest.TS(0.1), "plan_start", id, "plan_id", "p", "plan_file", "plans/plan-1.json", "steps", len(ds)))
		for _, d := range ds {
			b.WriteString(tracetest.Line(tracetest.TS(0.2), "delegation_start", id, "plan_id", "p", "step_id", "s-"+d, "delegation_id", d, "capsule", "local/worker", "version", "0.1.0", "pid", 7))
		}
		return b.String()
	}
	tracetest.Write(t, dir, map[string]string{
		"trace.jsonl":                                 start(sid, "d-1", "d-missing", "../escape"),
		"session.json":                                tracetest.SessionJSON(sid, "local/planner", "", ""),
		"delegations/d-1/trace.jsonl":                 start(child, "d-2"),
		"delegations/d-1/session.json":                tracetest.SessionJSON(child, "local/worker", sid, "d-1"),
		"delegations/d-1/completion.json":             `{"status": "terminated", "reported_by": "launcher", "detail": "the parent ended this delegation"}`,
		"delegations/d-1/delegations/d-2/trace.jsonl": start(grand),
		"delegations/stray/trace.jsonl":               start("20250102T150408Z-stray0"),
		"escape/trace.jsonl":                          start("must-not-be-read"),
	})
	s, err := tracefile.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ ID, Note, ChildID string }
	var got []row
	for _, d := range s.Delegations {
		r := row{ID: d.ID, Note: d.Note}
		if d.Child != nil {
			r.ChildID = d.Child.ID
		}
		got = append(got, r)
	}
	want := []row{
		{ID: "d-1", ChildID: child},
		{ID: "d-missing", Note: "no session directory at " + filepath.Join("delegations", "d-missing")},
		{ID: "../escape", Note: `the delegation id "../escape" is not a directory name; its directory is not looked for`},
		{ID: "stray", Note: "the trace does not name this delegation; its directory is there", ChildID: "20250102T150408Z-stray0"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("delegations (-want +got):\n%s", d)
	}
	d1 := s.Delegations[0]
	if d1.Completion == nil || d1.Completion.Status != "terminated" || d1.Child.SpawnedBy != sid || d1.Child.DelegationID != "d-1" {
		t.Errorf("d-1: %+v, child %+v", d1.Completion, d1.Child)
	}
	if g := d1.Child.Delegations; len(g) != 1 || g[0].Child == nil || g[0].Child.ID != grand {
		t.Errorf("grandchild: %+v", g)
	}
	// Opening the trace file instead finds the same delegations.
	s2, err := tracefile.Open(filepath.Join(dir, "trace.jsonl"))
	if err != nil || len(s2.Delegations) != 4 || s2.Delegations[0].Child == nil {
		t.Errorf("as a file: %v %+v", err, s2)
	}
}

// TestOpenLoop: a delegation directory that links back to an ancestor is
// shown once, not followed again.
func TestOpenLoop(t *testing.T) {
	dir := t.TempDir()
	tracetest.Write(t, dir, map[string]string{"trace.jsonl": tracetest.Line(tracetest.TS(0), "delegation_start", sid, "plan_id", "p", "step_id", "s", "delegation_id", "d", "capsule", "local/x", "version", "0.1.0", "pid", 1)})
	if err := os.MkdirAll(filepath.Join(dir, "delegations"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dir, filepath.Join(dir, "delegations", "d")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	s, err := tracefile.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	c := s.Delegations[0].Child
	if c == nil || len(c.Delegations) != 1 || c.Delegations[0].Child != nil {
		t.Fatalf("the loop was not cut after one turn: %+v", c)
	}
	if !strings.Contains(strings.Join(notes(c.Notes), "\n"), "already shown above") {
		t.Errorf("no note on the loop: %v", notes(c.Notes))
	}
}

// TestOpenDepth: delegations nested past MaxDepth are listed, not followed.
func TestOpenDepth(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	p := ""
	for range tracefile.MaxDepth + 2 {
		files[p+"trace.jsonl"] = tracetest.Line(tracetest.TS(0), "delegation_start", sid, "plan_id", "p", "step_id", "s", "delegation_id", "d", "capsule", "local/x", "version", "0.1.0", "pid", 1)
		p += "delegations/d/"
	}
	tracetest.Write(t, dir, files)
	s, err := tracefile.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	depth := 0
	for ; s.Delegations[0].Child != nil; s = s.Delegations[0].Child {
		depth++
	}
	if depth != tracefile.MaxDepth-1 || !strings.Contains(s.Delegations[0].Note, "nest deeper") {
		t.Errorf("followed %d levels, then %q", depth, s.Delegations[0].Note)
	}
}

// TestLargeTrace: a long trace reads and shows in linear time (a dispatch
// is matched to its plan_step by key, not by a scan).
func TestLargeTrace(t *testing.T) {
	if testing.Short() {
		t.Skip("large trace; skipped with -short")
	}
	const n = 30000
	var b strings.Builder
	b.WriteString(tracetest.Line(tracetest.TS(0), "plan_start", sid, "plan_id", "p", "plan_file", "plans/plan-1.json", "steps", n))
	for i := range n {
		fmt.Fprintf(&b, `{"ts":%q,"event":"plan_step_start","session":%q,"plan_id":"p","step_id":"s%d","kind":"shell","attempt":1}`+"\n", tracetest.TS(1), sid, i)
	}
	for i := n - 1; i >= 0; i-- {
		fmt.Fprintf(&b, `{"ts":%q,"event":"plan_step","session":%q,"plan_id":"p","step_id":"s%d","status":"success","attempt":1,"duration_ms":%d,"error":null}`+"\n", tracetest.TS(2), sid, i, i)
	}
	s := tracetest.FromText(t, b.String())
	var out strings.Builder
	if err := traceview.WriteSteps(&out, s); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(out.String(), "\n"); got != n+1 || strings.Contains(out.String(), "running") {
		t.Errorf("%d lines, or an attempt left running", got)
	}
}
