package capsule

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/planc/planc/host/sandbox"
	"github.com/planc/planc/host/session"
	"github.com/planc/planc/internal/sessionfmt"
	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/ir"
	"github.com/planc/planc/vm"
)

// fakeChild stands in for `planc __capsule`: it logs to $FAKE_LOG, says
// it is up (fd 4) after $FAKE_UP seconds unless that is "never", and
// exits on SIGTERM.
const fakeChild = `#!/bin/sh
trap 'echo term >> "$FAKE_LOG"; exit 3' TERM
echo start >> "$FAKE_LOG"
if [ "$FAKE_UP" != never ]; then
	sleep "$FAKE_UP"
	echo up >> "$FAKE_LOG"
	echo '{"up":true}' >&4
fi
while :; do sleep 0.02; done
`

// TestSpawnEndsLaunchingChild: a capsule step whose child is still
// starting when the cancel lands is ended as soon as it is up, not
// before; one that never comes up is killed a grace period after the
// cancel. Either way the launcher writes completion.json and leaves the
// delegation's line to the task.
func TestSpawnEndsLaunchingChild(t *testing.T) {
	f := newLaunchFixture(t, fakeChild, "launch")
	dir, sc, sess, tr, d := f.dir, f.sc, f.sess, f.tr, f.d

	for i, up := range []string{"0.4", "never"} {
		log := filepath.Join(dir, "log-"+up)
		t.Setenv("FAKE_LOG", log)
		t.Setenv("FAKE_UP", up)
		ctx, cancel := context.WithCancel(t.Context())
		cancel() // the cancel lands while the child starts
		c := vm.Call{PlanID: "p", Index: i, Attempt: 1, Step: &ir.Step{ID: "w" + strconv.Itoa(i), Kind: ir.KindCapsule, Target: "worker"}}
		start := time.Now()
		_, err := d.Spawn(ctx, sc, c)
		took := time.Since(start)
		if err == nil || !strings.HasPrefix(err.Error(), vm.CapsuleEnded) {
			t.Errorf("%s: err %v", up, err)
		}
		b, _ := os.ReadFile(log)
		id := d.delegationID(c)
		switch up {
		case "never":
			// Never signalled: killed, and not before the grace.
			if string(b) != "start\n" || took < 5*time.Second {
				t.Errorf("never up: log %q after %v", b, took)
			}
		default:
			// SIGTERM only once it said it was up, and not the SIGKILL
			// (the trap wrote term; the grace is long, so that a busy
			// machine's slow trap is not taken for a missing SIGTERM).
			if string(b) != "start\nup\nterm\n" {
				t.Errorf("up: log %q after %v", b, took)
			}
		}
		if _, err := os.Stat(filepath.Join(sess.Dir, sessionfmt.DelegationsDir, id, sessionfmt.CompletionFile)); err != nil {
			t.Errorf("%s: %v", up, err)
		}
		if index, _ := os.ReadFile(filepath.Join(sess.Dir, sessionfmt.OutputIndexPath(1))); !strings.Contains(string(index), `{"step_id":"`+c.Step.ID+`","attempt":1,`) {
			t.Errorf("%s: the attempt's output is not kept: no index line in %q", up, index)
		}
		if n := len(d.ended.list); n != i+1 || d.ended.list[n-1].id != id {
			t.Errorf("%s: ended %v", up, d.ended.list)
		}
	}
	tr.Close()
	var got []string
	objs := testkit.TraceLines(t, filepath.Join(sess.Dir, sessionfmt.TraceFile))
	for _, o := range objs {
		got = append(got, o["event"].(string)+" "+o["delegation_id"].(string))
	}
	if strings.Join(got, ", ") != "delegation_start plan-1-w0-1, delegation_start plan-1-w1-1" {
		t.Errorf("trace %v", got)
	}
	// Each spawn removed its leaf.
	ents, _ := os.ReadDir(sc.Dir())
	for _, e := range ents {
		if e.IsDir() {
			t.Errorf("leaf left: %s", e.Name())
		}
	}
}

// doneChild stands in for `planc __capsule` that completes at once: it
// says it is up, answers, reports completed (fd 4) and exits 0.
const doneChild = `#!/bin/sh
echo '{"up":true}' >&4
echo 'the answer'
echo '{"outcome":"completed"}' >&4
`

// lateCancel is a context whose cancel landed after the launcher saw its
// child exit: Err says cancelled, but Done never closed while the
// launcher watched the child.
type lateCancel struct{ context.Context }

func (lateCancel) Done() <-chan struct{} { return nil }
func (lateCancel) Err() error            { return context.Canceled }

// TestSpawnExitedBeforeCancel: a child that exited on its own before the
// cancel reached it was not ended by the cancel (docs/plans.md, "Cancel":
// the table's first row is a sub-capsule still running). Its delegation
// ends with its own outcome and line, it gets no completion.json, the
// task's task_canceled does not name it, and the step has its answer, so
// that the step's result agrees with its delegation line.
func TestSpawnExitedBeforeCancel(t *testing.T) {
	f := newLaunchFixture(t, doneChild, "exited")
	sc, sess, tr, d := f.sc, f.sess, f.tr, f.d

	c := vm.Call{PlanID: "p", Attempt: 1, Step: &ir.Step{ID: "w", Kind: ir.KindCapsule, Target: "worker"}}
	out, err := d.Spawn(lateCancel{t.Context()}, sc, c)
	if err != nil || out != "the answer\n" {
		t.Errorf("Spawn: %q, %v; want its answer", out, err)
	}
	id := d.delegationID(c)
	if _, err := os.Stat(filepath.Join(sess.Dir, sessionfmt.DelegationsDir, id, sessionfmt.CompletionFile)); err == nil {
		t.Error("the launcher wrote completion.json for a child the cancel did not end")
	}
	if len(d.ended.list) != 0 {
		t.Errorf("ended %v", d.ended.list)
	}
	tr.Close()
	var got []string
	for _, o := range testkit.TraceLines(t, filepath.Join(sess.Dir, sessionfmt.TraceFile)) {
		got = append(got, fmt.Sprint(o["event"], " ", o["delegation_id"], " ", o["outcome"]))
	}
	if want := "delegation_start plan-1-w-1 <nil>, delegation plan-1-w-1 completed"; strings.Join(got, ", ") != want {
		t.Errorf("trace %v; want %s", got, want)
	}
}

// launchFixture is a Launcher of local/top that may spawn local/worker
// from a roost in dir, starting exe (a script standing for planc
// __capsule) in a scope of its own, with the session and trace of plan 1.
type launchFixture struct {
	dir  string
	sc   *sandbox.Scope
	sess *session.Session
	tr   *session.Trace
	d    *Launcher
}

// newLaunchFixture makes a launchFixture whose child is the script child,
// in the scope planc-test-<pid>-<scope> (host/sandbox's tests leave it
// alone); it skips without a delegated cgroup v2 scope. The scope and
// the trace are closed when the test ends.
func newLaunchFixture(t *testing.T, child, scope string) *launchFixture {
	t.Helper()
	if err := sandbox.Probe(); err != nil {
		t.Skipf("no delegated cgroup v2 scope here: %v", err)
	}
	dir := t.TempDir()
	exe := filepath.Join(dir, "fake-planc")
	if err := os.WriteFile(exe, []byte(child), 0o755); err != nil {
		t.Fatal(err)
	}
	sc, err := sandbox.OpenScope("planc-test-" + strconv.Itoa(os.Getpid()) + "-" + scope)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := sc.Close(); err != nil {
			t.Errorf("close the scope: %v", err)
		}
	})
	sess, err := session.Create(filepath.Join(dir, "sessions"), sessionfmt.SessionInfo{Capsule: "local/top", Version: "0.1.0"})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := session.OpenTrace(filepath.Join(sess.Dir, sessionfmt.TraceFile), sess.Info.ID)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	roost := testkit.WriteRoost(t, dir, "local/worker", `{"name": "local/worker", "entrypoint": {"command": ["cat"]}}`)
	task := &session.Task{Session: sess, Trace: tr, Plan: &session.PlanFile{N: 1}, WorkDir: dir}
	d := &Launcher{task: task, roost: Roost{Dir: roost}, roostWas: true, from: "local/top", allow: []string{"local/worker"}, grace: 5 * time.Second, exe: exe}
	return &launchFixture{dir: dir, sc: sc, sess: sess, tr: tr, d: d}
}
