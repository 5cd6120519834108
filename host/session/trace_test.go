package session

import (
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/planc/planc/internal/sessionfmt"
	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/ir"
	"github.com/planc/planc/vm"
)

func TestTraceLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), sessionfmt.TraceFile)
	tr, err := OpenTrace(path, "s-1")
	if err != nil {
		t.Fatal(err)
	}
	tr.SessionStart("local/planc", "0.1.0", "", "")
	tr.Event(vm.Event{Kind: vm.PlanStart, PlanID: "p", PlanFile: "plans/plan-1.json", Steps: 2})
	tr.Event(vm.Event{Kind: vm.PlanStepStart, PlanID: "p", StepID: "a\"b", StepKind: ir.KindShell, Attempt: 1})
	tr.ProtectedPathDenied("p", "a\"b", "/x/plans/plan-1.json")
	tr.CallDenied("p", "c", 2, "on-shell")
	tr.Event(vm.Event{Kind: vm.PlanEnd, PlanID: "p", Outcome: vm.Completed})
	tr.SessionEnd(EndOK)
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	raw, objs := testkit.ReadTrace(t, path)
	wantEvents := []string{"session_start", "plan_start", "plan_step_start", "protected_path_denied", "call_denied", "plan_end", "session_end"}
	if len(objs) != len(wantEvents) {
		t.Fatalf("got %d lines, want %d:\n%s", len(objs), len(wantEvents), strings.Join(raw, "\n"))
	}
	for i, o := range objs {
		if o["event"] != wantEvents[i] || o["session"] != "s-1" {
			t.Errorf("line %d: event %v session %v, want %s s-1", i+1, o["event"], o["session"], wantEvents[i])
		}
		if ts, _ := o["ts"].(string); !testkit.TSPattern.MatchString(ts) {
			t.Errorf("line %d: ts %q is not RFC 3339 UTC with nanoseconds", i+1, ts)
		}
		if !strings.HasPrefix(raw[i], `{"ts":`) || !strings.Contains(raw[i], `","event":"`+wantEvents[i]+`","session":"s-1"`) {
			t.Errorf("line %d does not start with ts, event, session: %s", i+1, raw[i])
		}
	}
	if objs[0]["spawned_by"] != nil || objs[0]["delegation_id"] != nil || objs[0]["capsule"] != "local/planc" {
		t.Errorf("session_start: %s", raw[0])
	}
	if objs[3]["path"] != "/x/plans/plan-1.json" || objs[3]["step_id"] != "a\"b" {
		t.Errorf("protected_path_denied: %s", raw[3])
	}
	if objs[4]["hook"] != 2.0 || objs[4]["on"] != "on-shell" {
		t.Errorf("call_denied: %s", raw[4])
	}
	if objs[6]["exit_status"] != "ok" {
		t.Errorf("session_end: %s", raw[6])
	}
}

// TestTraceConcurrent: writers in goroutines and in two Trace values on
// the same file (two runs sharing a session) never tear a line.
func TestTraceConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), sessionfmt.TraceFile)
	var wg sync.WaitGroup
	for k := range 2 {
		tr, err := OpenTrace(path, "s")
		if err != nil {
			t.Fatal(err)
		}
		defer tr.Close()
		for g := range 8 {
			wg.Go(func() {
				for i := range 200 {
					tr.Event(vm.Event{Kind: vm.PlanStep, PlanID: strings.Repeat("x", 100*g+k), StepID: "s", Status: vm.StatusFailed, Attempt: i, Error: strings.Repeat("e", 3000)})
				}
			})
		}
	}
	wg.Wait()
	_, objs := testkit.ReadTrace(t, path)
	if len(objs) != 2*8*200 {
		t.Fatalf("got %d lines, want %d", len(objs), 2*8*200)
	}
}
