package capsule

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/host/sandbox"
	"github.com/planc/planc/host/session"
	"github.com/planc/planc/internal/sessionfmt"
	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/ir"
	"github.com/planc/planc/vm"
)

// TestTaskLines: before plan_end of a cancelled task come task_canceled
// with the ended delegations, their terminal lines, and task_end; a plan
// that was not cancelled gets none.
func TestTaskLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), sessionfmt.TraceFile)
	tr, err := session.OpenTrace(path, "s-1")
	if err != nil {
		t.Fatal(err)
	}
	d := &Launcher{task: &session.Task{Trace: tr, Plan: &session.PlanFile{N: 2}}}
	d.BeforeTrace(vm.Event{Kind: vm.PlanStep})
	d.BeforeTrace(vm.Event{Kind: vm.PlanEnd, Outcome: vm.Completed})
	d.BeforeTrace(vm.Event{Kind: vm.PlanEnd, Outcome: vm.Canceled})
	// A plan_end that is not canceled still closes a capsule the cancel
	// ended: the launcher does not rely on the VM turning a cancel after a
	// fail-stop into canceled (S30, V12), it closes whatever it ended.
	d.ended.list = []endedDelegation{{"p", "b", "plan-2-b-1"}, {"p", "a", "plan-2-a-1"}}
	d.BeforeTrace(vm.Event{Kind: vm.PlanEnd, Outcome: vm.Failed})
	tr.Close()
	objs := testkit.TraceLines(t, path)
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
	var nilD *Launcher
	nilD.BeforeTrace(vm.Event{Kind: vm.PlanEnd, Outcome: vm.Canceled}) // no capsule machinery: nothing
}

func TestDelegationID(t *testing.T) {
	d := &Launcher{task: &session.Task{Plan: &session.PlanFile{N: 3}}}
	for _, tt := range []struct {
		id      string
		index   int
		attempt int
		want    string
	}{
		{"fan-a", 0, 1, "plan-3-fan-a-1"},
		{"fan-a", 0, 2, "plan-3-fan-a-2"},
		{"a/b", 4, 1, "plan-3-a%2Fb-1"},
		{"..", 1, 7, "plan-3-%2E%2E-7"},
	} {
		c := vm.Call{Index: tt.index, Attempt: tt.attempt, Step: &ir.Step{ID: tt.id, Kind: ir.KindCapsule}}
		if got := d.delegationID(c); got != tt.want {
			t.Errorf("%q attempt %d: %s, want %s", tt.id, tt.attempt, got, tt.want)
		}
	}
}

// TestSpawnKeepsEmptyOutput: an attempt that starts no child (the roost
// has no such capsule) still keeps its output, an empty one: no file, and
// an index line of 0 bytes (S24).
func TestSpawnKeepsEmptyOutput(t *testing.T) {
	work := t.TempDir()
	sess, err := session.Create(filepath.Join(work, "sessions"), sessionfmt.SessionInfo{Capsule: "local/top"})
	if err != nil {
		t.Fatal(err)
	}
	task := &session.Task{Session: sess, Plan: &session.PlanFile{N: 1}, WorkDir: work}
	defer task.Close()
	d := &Launcher{task: task, roost: Roost{Dir: filepath.Join(work, "roost")}, from: "local/top", allow: []string{"local/worker"}}
	c := vm.Call{Step: &ir.Step{ID: "w", Kind: ir.KindCapsule, Target: "worker"}, Attempt: 2}
	out, err := d.Spawn(t.Context(), fakeStarter{}, c)
	if err == nil || out != "" {
		t.Errorf("out %q, err %v", out, err)
	}
	if _, err := os.Stat(filepath.Join(sess.Dir, "outputs", "plan-1", "w.2.txt")); !os.IsNotExist(err) {
		t.Errorf("an empty output got a kept file: %v", err)
	}
	task.Close()
	if b, _ := os.ReadFile(filepath.Join(sess.Dir, "outputs", "plan-1.index.jsonl")); string(b) != `{"step_id":"w","attempt":2,"bytes":0,"output":""}`+"\n" {
		t.Errorf("output index %q", b)
	}
}

// fakeStarter is a Starter that is never asked to start anything.
type fakeStarter struct{}

func (fakeStarter) StartProcess(*exec.Cmd, string) (*sandbox.Process, error) {
	panic("nothing should start")
}

func TestGrace(t *testing.T) {
	for env, want := range map[string]time.Duration{"": 5 * time.Second, "300ms": 300 * time.Millisecond, "x": 5 * time.Second, "-1s": 5 * time.Second} {
		t.Setenv(EnvGrace, env)
		if got := Grace(); got != want {
			t.Errorf("%q: %v", env, got)
		}
	}
}

// TestSpawnWithoutStarter: without a scope that can start sub-capsules
// (host's fake one in its tests) the step fails before the roost is
// asked.
func TestSpawnWithoutStarter(t *testing.T) {
	sess, err := session.Create(t.TempDir(), sessionfmt.SessionInfo{Capsule: "local/top"})
	if err != nil {
		t.Fatal(err)
	}
	d := &Launcher{task: &session.Task{Session: sess, Plan: &session.PlanFile{N: 1}}}
	defer d.task.Close()
	c := vm.Call{Step: &ir.Step{ID: "w", Kind: ir.KindCapsule, Target: "worker"}, Attempt: 1}
	if _, err := d.Spawn(t.Context(), nil, c); err == nil || err.Error() != Unsupported {
		t.Errorf("err %v", err)
	}
}
