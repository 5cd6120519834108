package host

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/ir"
	"github.com/planc/planc/vm"
)

// withoutTS drops ts from decoded trace lines, checking its form.
func withoutTS(t *testing.T, objs []map[string]any) []map[string]any {
	t.Helper()
	for i, o := range objs {
		if ts, _ := o["ts"].(string); !tsPattern.MatchString(ts) {
			t.Errorf("line %d: ts %q", i+1, o["ts"])
		}
		delete(o, "ts")
	}
	return objs
}

func TestDelegationTraceLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), TraceFile)
	tr, err := OpenTrace(path, "s-1")
	if err != nil {
		t.Fatal(err)
	}
	tr.DelegationStart("p", "w", "plan-1-w-1", "local/worker", "0.1.0", 4242)
	tr.Delegation("p", "w", "plan-1-w-1", DelegationCompleted, "")
	tr.Delegation("p", "w", "plan-1-w-2", DelegationFailed, `its command "x" exited with status 3`)
	tr.TaskCanceled("plan-1", nil)
	tr.TaskCanceled("plan-2", []string{"a", "b"})
	tr.TaskEnd("plan-2", "canceled")
	tr.SpawnerEnded()
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	raw, objs := readTrace(t, path)
	want := []map[string]any{
		{"event": "delegation_start", "session": "s-1", "plan_id": "p", "step_id": "w", "delegation_id": "plan-1-w-1", "capsule": "local/worker", "version": "0.1.0", "pid": 4242.0},
		{"event": "delegation", "session": "s-1", "plan_id": "p", "step_id": "w", "delegation_id": "plan-1-w-1", "outcome": "completed", "reason": nil},
		{"event": "delegation", "session": "s-1", "plan_id": "p", "step_id": "w", "delegation_id": "plan-1-w-2", "outcome": "failed", "reason": `its command "x" exited with status 3`},
		{"event": "task_canceled", "session": "s-1", "task_id": "plan-1", "delegation_ids": []any{}},
		{"event": "task_canceled", "session": "s-1", "task_id": "plan-2", "delegation_ids": []any{"a", "b"}},
		{"event": "task_end", "session": "s-1", "task_id": "plan-2", "outcome": "canceled"},
		{"event": "spawner_ended", "session": "s-1"},
	}
	if diff := cmp.Diff(want, withoutTS(t, objs)); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
	// ts, event and session lead every line, in that order.
	for _, l := range raw {
		if !regexpMatch(`\{"ts":"[^"]+","event":"[a-z_]+","session":"s-1"(,.*)?\}`, l) {
			t.Errorf("line %s", l)
		}
	}
}

// TestTaskLines: before plan_end of a cancelled task come task_canceled
// with the ended delegations, their terminal lines, and task_end; a plan
// that was not cancelled gets none.
func TestTaskLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), TraceFile)
	tr, err := OpenTrace(path, "s-1")
	if err != nil {
		t.Fatal(err)
	}
	d := &delegations{trace: tr, planN: 2}
	d.beforeTrace(vm.Event{Kind: vm.PlanStep})
	d.beforeTrace(vm.Event{Kind: vm.PlanEnd, Outcome: vm.Completed})
	d.beforeTrace(vm.Event{Kind: vm.PlanEnd, Outcome: vm.Canceled})
	// After a fail-stop the outcome stays failed, but a capsule the
	// cancel ended is closed all the same (docs/vm.md, decision 12).
	d.ended = []endedDelegation{{"p", "b", "plan-2-b-1"}, {"p", "a", "plan-2-a-1"}}
	d.beforeTrace(vm.Event{Kind: vm.PlanEnd, Outcome: vm.Failed})
	tr.Close()
	_, objs := readTrace(t, path)
	var got []string
	for _, o := range objs {
		b, _ := json.Marshal(map[string]any{"task": o["task_id"], "ids": o["delegation_ids"], "d": o["delegation_id"], "outcome": o["outcome"], "reason": o["reason"]})
		got = append(got, o["event"].(string)+" "+string(b))
	}
	want := []string{
		`task_canceled {"d":null,"ids":[],"outcome":null,"reason":null,"task":"plan-2"}`,
		`task_end {"d":null,"ids":null,"outcome":"canceled","reason":null,"task":"plan-2"}`,
		`task_canceled {"d":null,"ids":["plan-2-b-1","plan-2-a-1"],"outcome":null,"reason":null,"task":"plan-2"}`,
		`delegation {"d":"plan-2-b-1","ids":null,"outcome":"terminated","reason":"the delegating task was cancelled","task":null}`,
		`delegation {"d":"plan-2-a-1","ids":null,"outcome":"terminated","reason":"the delegating task was cancelled","task":null}`,
		`task_end {"d":null,"ids":null,"outcome":"canceled","reason":null,"task":"plan-2"}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
	var nilD *delegations
	nilD.beforeTrace(vm.Event{Kind: vm.PlanEnd, Outcome: vm.Canceled}) // no capsule machinery: nothing
}

func TestDelegationID(t *testing.T) {
	d := &delegations{planN: 3}
	for _, tt := range []struct {
		id      string
		index   int
		attempt int
		want    string
	}{
		{"fan-a", 0, 1, "plan-3-fan-a-1"},
		{"fan-a", 0, 2, "plan-3-fan-a-2"},
		{"a/b", 4, 1, "plan-3-a_b-4-1"},
		{"..", 1, 1, "plan-3-..-1-1"},
	} {
		c := vm.Call{Index: tt.index, Attempt: tt.attempt, Step: &ir.Step{ID: tt.id, Kind: ir.KindCapsule}}
		if got := d.delegationID(c); got != tt.want {
			t.Errorf("%q attempt %d: %s, want %s", tt.id, tt.attempt, got, tt.want)
		}
	}
}

// TestAnswerCut: an answer over 64 KiB is cut on a UTF-8 boundary and
// marked; answer.txt keeps it whole.
func TestAnswerCut(t *testing.T) {
	work := t.TempDir()
	dir := filepath.Join(work, "sess", DelegationsDir, "plan-1-w-1")
	os.MkdirAll(dir, 0o755)
	d := &delegations{workDir: work}
	whole := strings.Repeat("a", OutputLimit-1) + "é" + strings.Repeat("z", 100)
	os.WriteFile(filepath.Join(dir, AnswerFile), []byte(whole), 0o644)
	got, err := d.answer(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Repeat("a", OutputLimit-1) + "\n[cut: 65637 bytes in all; whole text at sess/delegations/plan-1-w-1/answer.txt]"
	if got != want {
		t.Errorf("cut answer ends %q", got[len(got)-120:])
	}
	os.WriteFile(filepath.Join(dir, AnswerFile), []byte("short\n"), 0o644)
	if got, err := d.answer(dir); got != "short\n" || err != nil {
		t.Errorf("short answer %q, %v", got, err)
	}
}

func TestCompletionFile(t *testing.T) {
	dir := t.TempDir()
	if err := writeCompletion(dir, launcherEnded); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, CompletionFile))
	if string(b) != `{"status":"terminated","reported_by":"launcher","detail":"the parent ended this delegation"}`+"\n" {
		t.Errorf("completion.json %s", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left %v", ents)
	}
}

func TestCapsuleGrace(t *testing.T) {
	for env, want := range map[string]time.Duration{"": 5 * time.Second, "300ms": 300 * time.Millisecond, "x": 5 * time.Second, "-1s": 5 * time.Second} {
		t.Setenv(EnvCapsuleGrace, env)
		if got := CapsuleGrace(); got != want {
			t.Errorf("%q: %v", env, got)
		}
	}
}

// TestSpawnWithoutStarter: a scope that cannot start sub-capsules (the
// fake one of the tests) fails the step before the roost is asked.
func TestSpawnWithoutStarter(t *testing.T) {
	d := &delegations{}
	c := vm.Call{Step: &ir.Step{ID: "w", Kind: ir.KindCapsule, Target: "worker"}, Attempt: 1}
	if _, err := d.spawn(t.Context(), newFakeScope(), c); err == nil || err.Error() != CapsuleUnsupported {
		t.Errorf("err %v", err)
	}
}
