package session

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/planc/planc/internal/sessionfmt"
	"github.com/planc/planc/vm"
)

// TestKeepReport: the report is kept as ReportJSON gives it, and a
// redrive sets the earlier one aside under the run that wrote it; with
// none kept there is nothing to set aside.
func TestKeepReport(t *testing.T) {
	s, err := Create(t.TempDir(), sessionfmt.SessionInfo{Capsule: "local/planc"})
	if err != nil {
		t.Fatal(err)
	}
	out := "a < b & c"
	rep := vm.Report{PlanID: "p", Steps: []vm.StepReport{{StepID: "s", Status: vm.StatusSuccess, Output: &out}}}
	b, err := rep.JSON()
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"plan_id\": \"p\",\n  \"completed\": false,\n  \"canceled\": false,\n  \"failed_step\": null,\n  \"steps\": [\n    {\n      \"step_id\": \"s\",\n      \"status\": \"success\",\n      \"output\": \"a < b & c\",\n      \"error\": null\n    }\n  ]\n}\n"
	if string(b) != want {
		t.Errorf("ReportJSON:\n%s\nwant:\n%s", b, want)
	}
	if err := s.SetAsideReport(1, 0); err != nil {
		t.Errorf("nothing to set aside: %v", err)
	}
	if err := s.KeepReport(1, b); err != nil {
		t.Fatal(err)
	}
	if err := s.SetAsideReport(1, 0); err != nil {
		t.Fatal(err)
	}
	if err := s.KeepReport(1, []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(s.Dir, "reports", "plan-1.redrive-0.json")); string(got) != want {
		t.Errorf("set aside: %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(s.Dir, "reports", "plan-1.json")); string(got) != "{}\n" {
		t.Errorf("kept: %q", got)
	}
	ents, _ := os.ReadDir(filepath.Join(s.Dir, "reports"))
	if len(ents) != 2 {
		t.Errorf("reports/ holds %d files, want 2 (no temporary file left)", len(ents))
	}
}
