package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/internal/sessionfmt"
	"github.com/planc/planc/internal/testkit"
)

// TestTraceAfterRun runs a real plan with planc run, then reads what it
// kept with planc trace logs, report and list: a step's output as it
// printed it, a retried step's attempts each headed, the report exactly as
// planc run printed it.
func TestTraceAfterRun(t *testing.T) {
	testkit.NeedScope(t)
	t.Parallel()
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "capsule.json", shellCapsule, "plan.json", `{"id": "e2e", "steps": [
		{"id": "greet", "shell": "echo hello from a step"},
		{"id": "boom", "shell": "sh -c 'echo partial; echo oops >&2; exit 4'", "depends_on": ["greet"], "retries": 1}
	]}`)
	r := planc(t, dir, "--capsule", "capsule.json", "plan.json")
	if r.code != 1 {
		t.Fatalf("planc run: exit %d, want 1:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	sess := oneSession(t, dir)
	if _, err := os.Stat(filepath.Join(sess, filepath.FromSlash(sessionfmt.OutputPath(1, "greet", 1)))); err != nil {
		t.Fatalf("planc run kept no output of greet (S24): %v", err)
	}

	if got := plancTrace(t, dir, "logs", "boom", "--attempt", "2"); got.code != 0 || got.stdout != "partial\noops\n" || got.stderr != "" {
		t.Errorf("logs boom --attempt 2: %+v", got)
	}
	heading := func(step string, attempt int, status string) string {
		return fmt.Sprintf(`==> %s, attempt %d: %s after \S+ <==\n`, regexp.QuoteMeta(step), attempt, status)
	}
	failed := "failed after \\S+: exit status 4"
	want := regexp.MustCompile("^" + strings.Replace(heading("boom", 1, "failed"), `failed after \S+`, failed, 1) + "partial\noops\n\n" +
		strings.Replace(heading("boom", 2, "failed"), `failed after \S+`, failed, 1) + "partial\noops\n$")
	if got := plancTrace(t, dir, "logs", "boom"); got.code != 0 || !want.MatchString(got.stdout) {
		t.Errorf("logs boom: %+v", got)
	}
	want = regexp.MustCompile("^" + heading("greet", 1, "success") + "hello from a step\n$")
	if got := plancTrace(t, dir, "logs", sess, "greet", "--plan", "1"); got.code != 0 || !want.MatchString(got.stdout) {
		t.Errorf("logs greet: %+v", got)
	}
	if got := plancTrace(t, dir, "logs", "gret"); got.code != 2 || !strings.Contains(got.stderr, `plan 1 has no step "gret"; did you mean "greet"?`) {
		t.Errorf("logs gret: %+v", got)
	}

	rep := plancTrace(t, dir, "report")
	kept, err := os.ReadFile(filepath.Join(sess, filepath.FromSlash(sessionfmt.ReportPath(1))))
	if err != nil || rep.code != 0 || rep.stdout != string(kept) {
		t.Fatalf("report: %+v, kept %q (%v)", rep, kept, err)
	}
	var printed, shown any
	if err := json.Unmarshal([]byte(r.stdout), &printed); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(kept, &shown); err != nil || !cmp.Equal(printed, shown) {
		t.Errorf("the kept report %s is not the one planc run printed:\n%s", kept, r.stdout)
	}

	list := plancTrace(t, dir, "list")
	row := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(filepath.Base(sess)) + ` +1 +e2e +failed +0 +2 +boom$`)
	if list.code != 0 || !row.MatchString(list.stdout) {
		t.Errorf("list: %+v", list)
	}
}
