package traceview_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/tracefile"
	"github.com/planc/planc/tracefile/internal/tracetest"
	"github.com/planc/planc/tracefile/traceview"
)

// TestWriteStepsAlignment: columns line up in terminal cells (a CJK
// character takes two, a combining accent none), and control characters
// from the trace are shown escaped, never sent to the terminal.
const sid = tracetest.SessionID

func TestWriteStepsAlignment(t *testing.T) {
	src := tracetest.Line(tracetest.TS(0), "plan_start", sid, "plan_id", "p", "plan_file", "plans/plan-1.json", "steps", 3) +
		tracetest.Line(tracetest.TS(1), "plan_step", sid, "plan_id", "p", "step_id", "日本", "status", "skipped", "attempt", 0, "duration_ms", 0, "error", nil) +
		tracetest.Line(tracetest.TS(2), "plan_step", sid, "plan_id", "p", "step_id", "e\u0301", "status", "skipped", "attempt", 0, "duration_ms", 0, "error", nil) +
		tracetest.Line(tracetest.TS(3), "plan_step", sid, "plan_id", "p", "step_id", "x\x1b[2J\u202e", "status", "failed", "attempt", 0, "duration_ms", 0, "error", "line one\nline two\ttab")
	s := tracetest.FromText(t, src)
	var b strings.Builder
	if err := traceview.WriteSteps(&b, s); err != nil {
		t.Fatal(err)
	}
	want := "PLAN  STEP            ATTEMPT  STATUS   DURATION  ERROR\n" +
		"p     日本            -        skipped  -\n" +
		"p     e\u0301               -        skipped  -\n" +
		"p     x\\x1b[2J\\u202e  -        failed   -         line one\\nline two\\ttab\n"
	if d := cmp.Diff(want, b.String()); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestWriteShowMinimal: a trace with nothing but damage still shows a
// session, with its notes.
func TestWriteShowMinimal(t *testing.T) {
	events, ns, err := tracefile.Read(strings.NewReader("{not json\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := tracefile.FromEvents(events)
	s.Notes = append(ns, s.Notes...)
	var b strings.Builder
	if err := traceview.WriteShow(&b, s); err != nil {
		t.Fatal(err)
	}
	want := `session (unknown id)
  exit  unknown: the trace has no session_start

  plans: none

  Delegations: none
`
	if d := cmp.Diff(want, b.String()); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	// The skipped line's note is the caller's to show (on standard error).
	if len(s.Notes) != 1 || !s.Notes[0].Skipped {
		t.Errorf("notes %+v, want the torn line's", s.Notes)
	}
}
