package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
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

// TestTraceSharedSessionAtOnce: two planc run share a session and run at
// the same time plans with the same id, each waiting inside its step
// until the other has started, so that their trace lines interleave. Every
// line of a run names its plan's number, and planc trace list, show and
// steps read each plan whole: completed, its own steps, no notes.
func TestTraceSharedSessionAtOnce(t *testing.T) {
	testkit.NeedScope(t)
	t.Parallel()
	dir := t.TempDir()
	wait := func(me, other string) string {
		return `{"id": "twin", "steps": [{"id": "meet", "shell": "sh -c 'touch ` + me + `; while [ ! -e ` + other + ` ]; do sleep 0.01; done; echo ` + me + `'"},
			{"id": "after-` + me + `", "shell": "echo done", "depends_on": ["meet"]}]}`
	}
	testkit.WriteFiles(t, dir, "capsule.json", shellCapsule, "a.json", wait("a", "b"), "b.json", wait("b", "a"))
	shared := filepath.Join(dir, ".planc", "sessions", "shared")
	outs := make([]runOut, 2)
	var wg sync.WaitGroup
	for i, plan := range []string{"a.json", "b.json"} {
		wg.Go(func() { outs[i] = planc(t, dir, "--capsule", "capsule.json", "--session", shared, plan) })
	}
	wg.Wait()
	for i, r := range outs {
		if r.code != 0 {
			t.Fatalf("run %d: exit %d: %s", i, r.code, r.stderr)
		}
	}
	// Both step starts come before either step's end: the runs overlapped.
	lines := testkit.TraceLines(t, filepath.Join(shared, "trace.jsonl"))
	var order []string
	for _, l := range lines {
		if l["step_id"] == "meet" {
			order = append(order, l["event"].(string))
		}
		if l["event"] == "session_start" || l["event"] == "trace_repaired" {
			continue
		}
		n, ok := sessionfmt.PlanNumber(fmt.Sprint(l["plan_file"]))
		if p, has := l["plan"].(float64); !has || p < 1 || l["event"] == "plan_start" && (!ok || int(p) != n) {
			t.Errorf("line without its plan's number: %v", l)
		}
	}
	if diff := cmp.Diff([]string{"plan_step_start", "plan_step_start", "plan_step", "plan_step"}, order); diff != "" {
		t.Fatalf("the runs did not overlap (-want +got):\n%s", diff)
	}

	list := plancTrace(t, dir, "list")
	rows := regexp.MustCompile(`(?m)^\S+ +([0-9-]+) +twin +(\S+) +0 +(\S+)`).FindAllStringSubmatch(list.stdout, -1)
	var got []string
	for _, m := range rows {
		got = append(got, strings.Join(m[1:], " "))
	}
	if diff := cmp.Diff([]string{"1 completed 2", "2 completed 2"}, got); list.code != 0 || diff != "" {
		t.Errorf("trace list (-want +got):\n%s\n%s%s", diff, list.stdout, list.stderr)
	}
	show := plancTrace(t, dir, "show", shared)
	for _, bad := range []string{"no plan_end", "without a session_start", "no open plan_start", "unsettled", "starts again"} {
		if strings.Contains(show.stdout+show.stderr, bad) {
			t.Errorf("trace show says %q:\n%s%s", bad, show.stdout, show.stderr)
		}
	}
	if !strings.Contains(show.stdout, "runs     2 (ok, ok)") || strings.Count(show.stdout, ": completed; 2 steps, 2 succeeded") != 2 {
		t.Errorf("trace show:\n%s", show.stdout)
	}
	steps := plancTrace(t, dir, "steps", shared)
	want := regexp.MustCompile(`(?s)^PLAN +STEP .*\ntwin \(plan-\d\) +meet +1 +success .*\ntwin \(plan-\d\) +after-[ab] +1 +success .*\ntwin \(plan-\d\) +meet +1 +success .*\ntwin \(plan-\d\) +after-[ab] +1 +success [^\n]*\n$`)
	if steps.code != 0 || !want.MatchString(steps.stdout) || steps.stderr != "" {
		t.Errorf("trace steps: %+v", steps)
	}
}
