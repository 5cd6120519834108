package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/vm"
)

// reportHostile is a file whose text, read by a step, carries a C1 CSI,
// a right-to-left override, an isolate and the line and paragraph
// separators into the report.
const reportHostile = "a\u009b31m \u202eevil\u2066 x\u2028y\u2029z é"

// TestAttackReportTerminal: the report planc run prints on a terminal
// shows the C1 and bidirectional controls and the line separators a
// step's output and the plan's id hold as \uXXXX escapes, and is still
// the report's JSON; piped, it carries them as they are. The dry run of
// a plan whose id and condition hold them shows none raw either.
func TestAttackReportTerminal(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "hostile.txt", reportHostile,
		"plan.json", `{"id": "r\u202e", "steps": [
			{"id": "read", "tool": "read-file", "input": {"path": "hostile.txt"}},
			{"id": "note", "tool": "notes", "depends_on": ["read"], "if": "$read.output != 'x\u2029\u2028\u009b\u202e'", "input": {"body": "ok"}}]}`)
	raw := []string{"\u009b", "\u202e", "\u2066", "\u2028", "\u2029"}
	cmd := exec.Command(plancBin(t), "run", "plan.json")
	cmd.Dir = dir
	code, screen := waitOnPTY(t, cmd, 200, 50, func(slave *os.File) { cmd.Stdout = slave })
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, screen)
	}
	screen = strings.ReplaceAll(screen, "\r\n", "\n")
	for _, bad := range raw {
		if strings.Contains(screen, bad) {
			t.Errorf("the terminal got %q:\n%q", bad, screen)
		}
	}
	var rep vm.Report
	if err := json.Unmarshal([]byte(screen), &rep); err != nil || len(rep.Steps) != 2 || deref(rep.Steps[0].Output) != reportHostile || rep.PlanID != "r\u202e" {
		t.Errorf("the report on the terminal is not the report's JSON: %v\n%q", err, screen)
	}
	for _, want := range []string{`\u009b31m \u202eevil\u2066 x\u2028y\u2029z é`, `"r\u202e"`} {
		if !strings.Contains(screen, want) {
			t.Errorf("the terminal did not show %s:\n%s", want, screen)
		}
	}
	if r := planc(t, dir, "plan.json"); r.code != 0 || !strings.Contains(r.stdout, "a\u009b31m \u202eevil") {
		t.Errorf("piped: exit %d, the report does not carry the output as it is:\n%q", r.code, r.stdout)
	}
	dry := planc(t, dir, "--dry-run", "plan.json")
	if dry.code != 0 {
		t.Fatalf("dry run: exit %d\n%s", dry.code, dry.stderr)
	}
	for _, bad := range raw {
		if strings.Contains(dry.stdout+dry.stderr, bad) {
			t.Errorf("the dry run printed %q:\n%s", bad, dry.stdout)
		}
	}
}
