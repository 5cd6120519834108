package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/vm"
)

// The end-to-end tests of capsule steps: planc run spawning sub-capsules
// from a roost through the built binary (docs/capsules.md; docs/plans.md,
// "Cancel": its table and numbered list, S22, S30).

// capsuleCaps is the spawning capsule: every shell step and tool call is
// denied by a hook and the whole directory is read_only, which capsule
// steps are never put to.
const capsuleCaps = `{
  "name": "local/top",
  "capabilities": {
    "plan": {"submit": true},
    "spawn": {"allow": ["local/echo", "local/summer", "local/big", "local/fail", "local/polite", "local/stubborn", "local/dup", "team/dup"]},
    "filesystem": {"read_only": ["."]}
  },
  "tools": {"builtin": ["notes"]},
  "hooks": [{"on": "on-shell", "commit_policy": "deny"}, {"on": "on-tool-call", "match": "write-*", "commit_policy": "deny"}]
}`

// writeTestRoost makes the test roost under dir/roost. The polite and
// stubborn capsules sleep for sleepPolite and sleepStubborn seconds, so
// that a test finds its own processes by their command lines.
func writeTestRoost(t *testing.T, dir, sleepPolite, sleepStubborn string) {
	t.Helper()
	testkit.WriteFiles(t, dir,
		"roost/local/echo/capsule.json", `{"name": "local/echo", "entrypoint": {"command": ["sh", "-c", "echo \"answer to: $(cat)\""]}}`,
		"roost/local/summer/capsule.json", `{"name": "local/summer", "version": "1.4.0",
			"capabilities": {"shell": {"allow": ["sh"]}}, "tools": {"builtin": ["notes"]},
			"entrypoint": {"plan": "summer-plan.json"}}`,
		"roost/local/summer/summer-plan.json", `{"id": "summer", "steps": [
			{"id": "read", "shell": "sh -c 'cat \"$PLANC_OBJECTIVE_FILE\"'"},
			{"id": "note", "tool": "notes", "depends_on": ["read"], "input": {"body": "$read.output"}}
		]}`,
		"roost/local/big/capsule.json", `{"name": "local/big", "entrypoint": {"command": ["sh", "-c", "head -c 70000 /dev/zero | tr '\\000' x"]}}`,
		"roost/local/fail/capsule.json", `{"name": "local/fail", "entrypoint": {"command": ["sh", "-c", "echo partial; echo oops >&2; exit 3"]}}`,
		"capsule.json", capsuleCaps,
	)
	testkit.WriteRoost(t, dir, testkit.CancelCapsules(sleepPolite, sleepStubborn)...)
}

// delegationDirs returns the delegation directories of the session sess,
// by name.
func delegationDirs(t *testing.T, sess string) map[string]string {
	t.Helper()
	out := map[string]string{}
	ents, _ := os.ReadDir(filepath.Join(sess, "delegations"))
	for _, e := range ents {
		out[e.Name()] = filepath.Join(sess, "delegations", e.Name())
	}
	return out
}

// capsuleEvents returns "event step_id delegation_id" for each trace line of
// path whose event is one of names (all when none are given).
func capsuleEvents(t *testing.T, path string, names ...string) []string {
	t.Helper()
	var out []string
	for _, l := range testkit.TraceLines(t, path) {
		e := l["event"].(string)
		if len(names) == 0 || slices.Contains(names, e) {
			s := e
			for _, k := range []string{"step_id", "delegation_id", "exit_status", "outcome"} {
				if v, ok := l[k].(string); ok {
					s += " " + v
				}
			}
			out = append(out, s)
		}
	}
	return out
}

// TestCapsuleSteps: answers from both entrypoint kinds, the cut of a long
// answer, a failing sub-capsule, unlisted and ambiguous capsules, the
// delegation directories and the trace's delegation lines.
func TestCapsuleSteps(t *testing.T) {
	testkit.NeedScope(t)
	t.Parallel()
	dir := t.TempDir()
	writeTestRoost(t, dir, "300.01", "300.02")
	sess := filepath.Join(dir, "sess")
	testkit.WriteFiles(t, dir, "plan.json", `{"id": "fan", "steps": [
		{"id": "echo", "capsule": "echo", "input": "hello"},
		{"id": "sum", "capsule": "summer", "input": {"objective": "sum this"}},
		{"id": "big", "capsule": "big", "input": "x"},
		{"id": "fail", "capsule": "fail", "input": "x", "on_error": "continue"},
		{"id": "unlisted", "capsule": "nobody", "input": "x", "on_error": "continue"},
		{"id": "ambiguous", "capsule": "dup", "input": "x", "on_error": "continue"},
		{"id": "again", "capsule": "echo", "depends_on": ["echo"], "input": "$echo.output"}
	]}`)
	r := planc(t, dir, "--capsule", "capsule.json", "--roost", "roost", "--session", sess, "plan.json")
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	got := map[string]vm.StepReport{}
	for _, s := range r.report(t).Steps {
		got[s.StepID] = s
	}
	if s := got["echo"]; s.Status != vm.StatusSuccess || deref(s.Output) != "answer to: hello\n" {
		t.Errorf("echo: %+v", s)
	}
	if s := got["again"]; s.Status != vm.StatusSuccess || deref(s.Output) != "answer to: answer to: hello\n" {
		t.Errorf("again: %s %q", s.Status, deref(s.Output))
	}
	// A plan entrypoint answers with its report, run under its own
	// manifest: its shell step reads the objective.
	var inner vm.Report
	if err := json.Unmarshal([]byte(deref(got["sum"].Output)), &inner); err != nil || got["sum"].Status != vm.StatusSuccess {
		t.Fatalf("sum: %+v (%v)", got["sum"], err)
	}
	wantInner := vm.Report{PlanID: "summer", Completed: true, Steps: []vm.StepReport{
		{StepID: "read", Status: vm.StatusSuccess, Output: ptr("sum this")},
		{StepID: "note", Status: vm.StatusSuccess, Output: ptr("appended 9 bytes to notes.md")},
	}}
	if diff := cmp.Diff(wantInner, inner); diff != "" {
		t.Errorf("sum's answer (-want +got):\n%s", diff)
	}
	// Over 64 KiB: cut, marked, kept whole as the attempt's output (the
	// mark names it) and in the delegation directory.
	big := deref(got["big"].Output)
	mark := "\n[cut: 70000 bytes in all; whole text at sess/outputs/plan-1/big.1.txt]"
	if big != strings.Repeat("x", 65536)+mark {
		t.Errorf("big: %d bytes, ends %q", len(big), big[max(0, len(big)-120):])
	}
	for _, f := range []string{"delegations/plan-1-big-1/answer.txt", "outputs/plan-1/big.1.txt"} {
		if b, _ := os.ReadFile(filepath.Join(sess, f)); len(b) != 70000 {
			t.Errorf("%s holds %d bytes", f, len(b))
		}
	}
	// A failed child's answer is kept too.
	if b, _ := os.ReadFile(filepath.Join(sess, "outputs/plan-1/fail.1.txt")); string(b) != "partial\n" {
		t.Errorf("fail's kept output %q", b)
	}
	// A failing child fails the step with a clear error; its answer is
	// still the output.
	if s := got["fail"]; s.Status != vm.StatusFailed || deref(s.Output) != "partial\n" || deref(s.Error) != "sub-capsule local/fail (delegation plan-1-fail-1) failed: its command sh exited with status 3 (stderr: oops)" {
		t.Errorf("fail: %s %q %q", s.Status, deref(s.Output), deref(s.Error))
	}
	if b, _ := os.ReadFile(filepath.Join(sess, "delegations/plan-1-fail-1/stderr.txt")); !strings.Contains(string(b), "oops\n") {
		t.Errorf("fail's stderr.txt: %q", b)
	}
	// The roost refuses at spawn time: the step fails, not the plan.
	// Each with its fix, as the report is what a model reads.
	if e := deref(got["unlisted"].Error); got["unlisted"].Status != vm.StatusFailed || !strings.HasPrefix(e, `the roost refuses to spawn capsule "nobody": it is not in capabilities.spawn.allow of "local/top", which allows "local/echo", `) ||
		!strings.HasSuffix(e, `; add its namespaced name (e.g. "local/nobody") to capabilities.spawn.allow in the manifest of "local/top"`) {
		t.Errorf("unlisted: %s", e)
	}
	if e := deref(got["ambiguous"].Error); e != `the roost refuses to spawn capsule "dup": it matches "local/dup" and "team/dup" in capabilities.spawn.allow of "local/top", which is ambiguous; keep one of them in capabilities.spawn.allow, or rename one of those capsules` {
		t.Errorf("ambiguous: %s", e)
	}

	// One directory per delegation, each a child session.
	parentID := testkit.SessionID(t, sess)
	dirs := delegationDirs(t, sess)
	ids := []string{"plan-1-again-1", "plan-1-big-1", "plan-1-echo-1", "plan-1-fail-1", "plan-1-sum-1"}
	if diff := cmp.Diff(ids, slices.Sorted(func(yield func(string) bool) {
		for k := range dirs {
			if !yield(k) {
				return
			}
		}
	})); diff != "" {
		t.Fatalf("delegation directories (-want +got):\n%s", diff)
	}
	for id, d := range dirs {
		var info struct {
			Capsule      string `json:"capsule"`
			Version      string `json:"version"`
			SpawnedBy    string `json:"spawned_by"`
			DelegationID string `json:"delegation_id"`
		}
		b, _ := os.ReadFile(filepath.Join(d, "session.json"))
		if err := json.Unmarshal(b, &info); err != nil || info.SpawnedBy != parentID || info.DelegationID != id {
			t.Errorf("%s/session.json: %s", id, b)
		}
		first := testkit.TraceLines(t, filepath.Join(d, "trace.jsonl"))[0]
		if first["event"] != "session_start" || first["spawned_by"] != parentID || first["delegation_id"] != id || first["capsule"] != info.Capsule {
			t.Errorf("%s: first line %v", id, first)
		}
		if _, err := os.Stat(filepath.Join(d, "completion.json")); err == nil {
			t.Errorf("%s has a completion.json, but nobody ended it", id)
		}
	}
	if ev := capsuleEvents(t, filepath.Join(dirs["plan-1-sum-1"], "trace.jsonl")); !slices.Equal(ev, []string{
		"session_start plan-1-sum-1", "plan_start", "plan_step_start read", "plan_step read", "plan_step_start note", "plan_step note", "plan_end completed", "session_end ok"}) {
		t.Errorf("sum's child trace: %v", ev)
	}

	// Each capsule step: plan_step_start, delegation_start, delegation,
	// plan_step, ids matching; refused spawns have no delegation; the
	// hooks and read_only never saw a capsule step.
	lines := testkit.TraceLines(t, filepath.Join(sess, "trace.jsonl"))
	for _, step := range []string{"echo", "sum", "big", "fail", "again", "unlisted", "ambiguous"} {
		var seq []string
		for _, l := range lines {
			if l["step_id"] == step {
				seq = append(seq, strings.TrimSpace(l["event"].(string)+" "+str(l["delegation_id"])+" "+str(l["outcome"])))
			}
		}
		id := "plan-1-" + step + "-1"
		want := []string{"plan_step_start", "delegation_start " + id, "delegation " + id + " completed", "plan_step"}
		switch step {
		case "fail":
			want[2] = "delegation " + id + " failed"
		case "unlisted", "ambiguous":
			want = []string{"plan_step_start", "plan_step"}
		}
		if diff := cmp.Diff(want, seq); diff != "" {
			t.Errorf("%s's lines (-want +got):\n%s", step, diff)
		}
	}
	for _, l := range lines {
		switch l["event"] {
		case "delegation_start":
			if l["capsule"] == "local/summer" && l["version"] != "1.4.0" || l["capsule"] == "local/echo" && l["version"] != "0.1.0" || l["pid"].(float64) <= 0 {
				t.Errorf("delegation_start %v", l)
			}
		case "call_denied", "protected_path_denied", "task_canceled", "task_end":
			t.Errorf("unexpected %v", l)
		}
	}
	if left := testkit.ScopesLeft(t, parentID); len(left) > 0 {
		t.Errorf("cgroups left behind: %v", left)
	}
}

// str is v as a string, "" when it is not one.
func str(v any) string {
	s, _ := v.(string)
	return s
}
