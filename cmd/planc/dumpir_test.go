package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// goldenDir is the golden package's testdata, shared so dump-ir is held to
// the same plans and the same IR files as the golden tests.
const goldenDir = "../../golden/testdata"

// TestDumpIRAccepted: dump-ir prints, for every plan check accepts, exactly
// the program text the golden IR files hold, with nothing on stderr.
func TestDumpIRAccepted(t *testing.T) {
	capsule := filepath.Join(goldenDir, "check/capsule.json")
	plans, _ := filepath.Glob(filepath.Join(goldenDir, "check/ok/*.json"))
	if len(plans) == 0 {
		t.Fatal("no golden ok plans")
	}
	for _, p := range plans {
		t.Run(filepath.Base(p), func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(goldenDir, "ir", strings.TrimSuffix(filepath.Base(p), ".json")+".ir"))
			if err != nil {
				t.Fatal(err)
			}
			got := run(t, "", "dump-ir", "--capsule", capsule, p)
			if got.Code != 0 || got.Stderr != "" {
				t.Fatalf("exit %d, stderr %q", got.Code, got.Stderr)
			}
			if diff := cmp.Diff(string(want), got.Stdout); diff != "" {
				t.Errorf("(-golden +dump-ir):\n%s", diff)
			}
		})
	}
}

// TestDumpIRRefused: dump-ir refuses what check refuses, with the very
// diagnostics check prints (on stderr), and exit 1; a plan with warnings
// only is still dumped.
func TestDumpIRRefused(t *testing.T) {
	refusedAsCheck(t, "plan ", "dump-ir")
}

// refusedAsCheck runs `planc check` and `planc args… PLAN` on every golden
// plan that check refuses or warns about: args prints check's output on
// its standard error and exits 1 for a refused plan, and for a plan with
// warnings only prints what starts with accepted and exits 0.
func refusedAsCheck(t *testing.T, accepted string, args ...string) {
	capsule := filepath.Join(goldenDir, "check/capsule.json")
	plans, _ := filepath.Glob(filepath.Join(goldenDir, "check/err/*.json"))
	for _, p := range plans {
		if strings.HasPrefix(filepath.Base(p), "limits-") {
			continue // those use smaller limits than the CLI's
		}
		t.Run(filepath.Base(p), func(t *testing.T) {
			chk := run(t, "", "check", "--capsule", capsule, p)
			got := run(t, "", append(append([]string{args[0], "--capsule", capsule}, args[1:]...), p)...)
			if chk.Stdout != got.Stderr {
				t.Errorf("%s's stderr differs from check's output (-check +%[1]s):\n%s", args[0], cmp.Diff(chk.Stdout, got.Stderr))
			}
			switch chk.Code {
			case 1:
				if got.Code != 1 || got.Stdout != "" {
					t.Errorf("refused plan: %s exit %d, stdout %q", args[0], got.Code, got.Stdout)
				}
			case 0:
				if got.Code != 0 || !strings.HasPrefix(got.Stdout, accepted) {
					t.Errorf("warnings only: %s exit %d, stdout %q", args[0], got.Code, got.Stdout)
				}
			default:
				t.Fatalf("check exit %d", chk.Code)
			}
		})
	}
}

func TestDumpIRUsage(t *testing.T) {
	if got := run(t, "", "dump-ir"); got.Code != 2 || !strings.Contains(got.Stderr, "give exactly one plan") {
		t.Errorf("no plan: %+v", got)
	}
	if got := run(t, "", "dump-ir", "nope.json"); got.Code != 2 {
		t.Errorf("unreadable plan: %+v", got)
	}
	got := run(t, `{"id": "p", "steps": [{"id": "a", "tool": "notes", "input": {"body": "x"}}]}`, "dump-ir", "-")
	if got.Code != 0 || !strings.Contains(got.Stdout, `step 0 "a"`) {
		t.Errorf("stdin: %+v", got)
	}
}
