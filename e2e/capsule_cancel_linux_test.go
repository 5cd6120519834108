package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/vm"
)

// cancelPlan runs a sub-capsule that winds down on SIGTERM (polite) and
// one that ignores it (stubborn), and a step after polite.
const cancelPlan = `{"id": "stop", "steps": [
	{"id": "polite", "capsule": "polite", "input": "wait"},
	{"id": "stubborn", "capsule": "stubborn", "input": "wait"},
	{"id": "later", "tool": "notes", "depends_on": ["polite"], "input": {"body": "x"}}
]}`

// The error of a capsule step the cancel ended (vm.CapsuleEnded).
const capsuleEnded = "the task running this plan was cancelled; this step's sub-capsule was ended with it"

// The completion.json the launcher writes (docs/plans.md, "Cancel", step 2
// of the numbered list).
const launcherCompletion = `{"status":"terminated","reported_by":"launcher","detail":"the parent ended this delegation"}` + "\n"

// traceTime is the ts of a trace line.
func traceTime(t *testing.T, l map[string]any) time.Time {
	t.Helper()
	ts, err := time.Parse(time.RFC3339Nano, l["ts"].(string))
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// TestCapsuleCancel: SIGINT to the parent while two sub-capsules run,
// exactly as docs/plans.md, "Cancel", lists it: SIGTERM at once, SIGKILL of the
// leaf 5 s later for the one that ignores it; session_end canceled from the one
// that exits in time; completion.json from the launcher once each has exited;
// task_canceled, the terminal delegation lines, task_end and plan_end in the
// parent's trace; nothing left running.
func TestCapsuleCancel(t *testing.T) {
	testkit.NeedScope(t)
	t.Parallel()
	dir := t.TempDir()
	writeTestRoost(t, dir, "300.11", "300.22")
	sess := filepath.Join(dir, "sess")
	testkit.WriteFiles(t, dir, "plan.json", cancelPlan)
	cmd := plancCmd(t, dir, "--capsule", "capsule.json", "--roost", "roost", "--session", sess, "plan.json")
	var so, se strings.Builder
	cmd.Stdout, cmd.Stderr = &so, &se
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	testkit.WaitStarted(t, sess, 2)
	start := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	code := exitCode(t, cmd.Wait())
	took := time.Since(start)
	if code != 3 {
		t.Fatalf("exit %d:\n%s\n%s", code, so.String(), se.String())
	}
	// The stubborn one held the plan until its leaf was killed, 5 s after
	// its SIGTERM. The upper bound is loose on purpose: it catches a kill
	// that never comes, not a slow machine.
	if took < 5*time.Second || took > 20*time.Second {
		t.Errorf("the plan ended %v after SIGINT; want a little over 5s", took)
	}
	want := vm.Report{PlanID: "stop", Canceled: true, Steps: []vm.StepReport{
		{StepID: "later", Status: vm.StatusSkipped, Error: ptr("the task running this plan was cancelled before this step ran")},
		{StepID: "polite", Status: vm.StatusFailed, Output: ptr("started\nbye\n"), Error: ptr(capsuleEnded)},
		{StepID: "stubborn", Status: vm.StatusFailed, Output: ptr("started\n"), Error: ptr(capsuleEnded)},
	}}
	if diff := cmp.Diff(want, runOut{stdout: so.String()}.report(t)); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}

	polite, stubborn := filepath.Join(sess, "delegations/plan-1-polite-1"), filepath.Join(sess, "delegations/plan-1-stubborn-1")
	// 1. The polite one wound down on SIGTERM within about a second and
	// wrote session_end canceled; the stubborn one was killed and wrote
	// none.
	pl := testkit.TraceLines(t, filepath.Join(polite, "trace.jsonl"))
	if ev := capsuleEvents(t, filepath.Join(polite, "trace.jsonl")); !slices.Equal(ev, []string{"session_start plan-1-polite-1", "session_end canceled"}) {
		t.Errorf("polite's trace: %v", ev)
	} else if d := traceTime(t, pl[1]).Sub(start); d >= 5*time.Second {
		// Well before the 5 s SIGKILL: the polite one ended on SIGTERM
		// (its session_end proves it was not killed).
		t.Errorf("polite ended %v after SIGINT", d)
	}
	if ev := capsuleEvents(t, filepath.Join(stubborn, "trace.jsonl")); !slices.Equal(ev, []string{"session_start plan-1-stubborn-1"}) {
		t.Errorf("stubborn's trace: %v", ev)
	}
	// 2. completion.json in each, from the launcher.
	for _, d := range []string{polite, stubborn} {
		if b, _ := os.ReadFile(filepath.Join(d, "completion.json")); string(b) != launcherCompletion {
			t.Errorf("%s/completion.json: %q", filepath.Base(d), b)
		}
	}
	// 3 and 4. The parent's trace: task_canceled naming both, their
	// terminal lines, task_end, then plan_end and session_end.
	lines := testkit.TraceLines(t, filepath.Join(sess, "trace.jsonl"))
	n := len(lines)
	if n < 6 {
		t.Fatalf("trace: %v", lines)
	}
	tail := lines[n-6:]
	ids, _ := tail[0]["delegation_ids"].([]any)
	if tail[0]["event"] != "task_canceled" || tail[0]["task_id"] != "plan-1" || len(ids) != 2 {
		t.Errorf("task_canceled: %v", tail[0])
	}
	var ended []string
	for i, l := range tail[1:3] {
		if l["event"] != "delegation" || l["outcome"] != "terminated" || l["reason"] != "the delegating task was cancelled" || l["delegation_id"] != ids[i] {
			t.Errorf("delegation line: %v", l)
		}
		ended = append(ended, str(l["delegation_id"]))
	}
	slices.Sort(ended)
	if !slices.Equal(ended, []string{"plan-1-polite-1", "plan-1-stubborn-1"}) {
		t.Errorf("ended %v", ended)
	}
	if l := tail[3]; l["event"] != "task_end" || l["task_id"] != "plan-1" || l["outcome"] != "canceled" {
		t.Errorf("task_end: %v", l)
	}
	if tail[4]["event"] != "plan_end" || tail[4]["outcome"] != "canceled" || tail[5]["exit_status"] != "canceled" {
		t.Errorf("trace ends %v %v", tail[4], tail[5])
	}
	// Each delegation has exactly one terminal line: the task's.
	if ev := capsuleEvents(t, filepath.Join(sess, "trace.jsonl"), "delegation_start", "delegation"); len(ev) != 4 {
		t.Errorf("delegation lines: %v", ev)
	}
	for _, m := range []string{"sleep 300.11", "sleep 300.22", "--roost " + filepath.Join(dir, "roost")} {
		if left := testkit.StillRunning(m, 0); len(left) > 0 {
			t.Errorf("%s left running: %v", m, left)
		}
	}
	if left := testkit.ScopesLeft(t, testkit.SessionID(t, sess)); len(left) > 0 {
		t.Errorf("cgroups left behind: %v", left)
	}
}

// TestCapsuleSpawnerKilled: after kill -9 of the parent, each sub-capsule
// sees its lifeline close, writes spawner_ended, ends its command (the
// stubborn one's by SIGKILL, after PLANC_CAPSULE_GRACE) and exits, leaving
// no completion.json; the parent's guardian waits for them and then
// removes the plan's scope.
func TestCapsuleSpawnerKilled(t *testing.T) {
	testkit.NeedScope(t)
	t.Parallel()
	dir := t.TempDir()
	writeTestRoost(t, dir, "301.11", "301.22")
	sess := filepath.Join(dir, "sess")
	testkit.WriteFiles(t, dir, "plan.json", cancelPlan)
	cmd := plancCmd(t, dir, "--capsule", "capsule.json", "--roost", "roost", "--session", sess, "plan.json")
	cmd.Env = append(os.Environ(), "PLANC_CAPSULE_GRACE=500ms")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	roost := filepath.Join(dir, "roost")
	testkit.WaitStarted(t, sess, 2)
	cmd.Process.Kill()
	cmd.Wait()

	// The sub-capsules and their commands go on their own.
	testkit.StillRunning("--roost "+roost, 10*time.Second)
	for _, m := range []string{"--roost " + roost, "sleep 301.11", "sleep 301.22"} {
		if left := testkit.StillRunning(m, 0); len(left) > 0 {
			t.Errorf("%s still running: %v", m, left)
		}
	}
	for _, id := range []string{"plan-1-polite-1", "plan-1-stubborn-1"} {
		d := filepath.Join(sess, "delegations", id)
		if ev := capsuleEvents(t, filepath.Join(d, "trace.jsonl")); !slices.Equal(ev, []string{"session_start " + id, "spawner_ended"}) {
			t.Errorf("%s's trace: %v", id, ev)
		}
		if _, err := os.Stat(filepath.Join(d, "completion.json")); err == nil {
			t.Errorf("%s has a completion.json", id)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(sess, "delegations/plan-1-polite-1/answer.txt")); string(b) != "started\nbye\n" {
		t.Errorf("polite's answer: %q", b)
	}
	id := testkit.SessionID(t, sess)
	var left []string
	if !testkit.Within(0, func() bool { left = testkit.ScopesLeft(t, id); return len(left) == 0 }) {
		t.Errorf("the guardian left the scope: %v", left)
	}
	// The parent's trace stops where it was killed.
	if ev := capsuleEvents(t, filepath.Join(sess, "trace.jsonl"), "delegation", "task_canceled", "plan_end", "session_end"); len(ev) > 0 {
		t.Errorf("the killed parent's trace has %v", ev)
	}
}

// TestCapsuleCancelAtStart: a cancel that lands while the sub-capsule is
// still starting is never lost (docs/capsules.md, "Cancel"). SIGTERM goes
// to planc run the moment its trace shows the capsule step's
// plan_step_start (the child not yet started or up) or delegation_start
// (the child up, its command perhaps not yet), 20 times each, the runs
// side by side so that the cancel lands at every moment of the start-up.
// Every time the child winds down on the cancel itself, not on the
// launcher's SIGKILL: its trace ends with session_end canceled (a killed
// child writes none; the grace is long, so that a lost cancel cannot pass
// for a slow one), completion.json says terminated, and the step settles
// as the cancel ended it.
func TestCapsuleCancelAtStart(t *testing.T) {
	testkit.NeedScope(t)
	t.Parallel()
	dir := t.TempDir()
	testkit.WriteFiles(t, dir,
		"capsule.json", `{"name": "local/top", "capabilities": {"plan": {"submit": true}, "spawn": {"allow": ["local/polite"]}, "filesystem": {"read_only": ["."]}}}`,
		"plan.json", `{"id": "start", "steps": [{"id": "polite", "capsule": "polite", "input": "wait"}]}`)
	testkit.WriteRoost(t, dir, testkit.CancelCapsules("302.31", "302.32")...)
	t.Cleanup(func() { // after the subtests
		if left := testkit.StillRunning("sleep 302.31", 0); len(left) > 0 {
			t.Errorf("left running: %v", left)
		}
	})
	for _, event := range []string{"plan_step_start", "delegation_start"} {
		t.Run(event, func(t *testing.T) {
			t.Parallel()
			cancelAtStart(t, dir, event, 20)
		})
	}
}

// cancelAtStart runs the plan of dir n times, 5 at a time, sends SIGTERM
// to each planc run as soon as its trace has event, and checks how each
// ended.
func cancelAtStart(t *testing.T, dir, event string, n int) {
	type run struct {
		sess   string
		cmd    *exec.Cmd
		so, se strings.Builder
		err    error // not started, or the event never came
	}
	plancBin(t) // built once, before the runs
	runs := make([]*run, n)
	var wg sync.WaitGroup
	slots := make(chan struct{}, 5)
	for i := range runs {
		r := &run{sess: filepath.Join(dir, fmt.Sprintf("sess-%s-%d", event, i))}
		runs[i] = r
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			// Made once it has a slot: its minute runs from its start.
			r.cmd = plancCmd(t, dir, "--capsule", "capsule.json", "--roost", "roost", "--session", r.sess, "plan.json")
			r.cmd.Env = append(os.Environ(), "PLANC_CAPSULE_GRACE=30s")
			r.cmd.Stdout, r.cmd.Stderr = &r.so, &r.se
			if r.err = r.cmd.Start(); r.err != nil {
				return
			}
			exited := make(chan struct{})
			go func() { r.cmd.Wait(); close(exited) }()
			// Polled closely: the cancel is to land as near the event as
			// it can.
			trace, want := filepath.Join(r.sess, "trace.jsonl"), []byte(`"event":"`+event+`"`)
			for {
				if b, _ := os.ReadFile(trace); bytes.Contains(b, want) {
					r.cmd.Process.Signal(syscall.SIGTERM)
					break
				}
				select {
				case <-exited:
					r.err = fmt.Errorf("planc run ended before its trace had %s:\n%s", event, r.se.String())
					return
				case <-time.After(time.Millisecond):
				}
			}
			<-exited
		}()
	}
	wg.Wait()

	wantReport := vm.Report{PlanID: "start", Canceled: true, Steps: []vm.StepReport{{StepID: "polite", Status: vm.StatusFailed, Error: ptr(capsuleEnded)}}}
	for i, r := range runs {
		if r.err != nil {
			t.Errorf("run %d: %v", i, r.err)
			continue
		}
		if code := r.cmd.ProcessState.ExitCode(); code != 3 {
			t.Errorf("run %d: exit %d:\n%s\n%s", i, code, r.so.String(), r.se.String())
			continue
		}
		got := runOut{stdout: r.so.String()}.report(t)
		for j := range got.Steps {
			got.Steps[j].Output = nil // "", "started\n" or "started\nbye\n": when the cancel landed
		}
		if diff := cmp.Diff(wantReport, got); diff != "" {
			t.Errorf("run %d: report (-want +got):\n%s", i, diff)
		}
		id := "plan-1-polite-1"
		child := filepath.Join(r.sess, "delegations", id)
		if ev := capsuleEvents(t, filepath.Join(child, "trace.jsonl")); !slices.Equal(ev, []string{"session_start " + id, "session_end canceled"}) {
			t.Errorf("run %d: the child's trace is %v; want it to end with session_end canceled (stderr: %q)", i, ev, readFile(filepath.Join(child, "stderr.txt")))
		}
		if b := readFile(filepath.Join(child, "completion.json")); b != launcherCompletion {
			t.Errorf("run %d: completion.json: %q", i, b)
		}
		if ev := capsuleEvents(t, filepath.Join(r.sess, "trace.jsonl"), "delegation_start", "delegation", "plan_end"); !slices.Equal(ev, []string{
			"delegation_start polite " + id, "delegation polite " + id + " terminated", "plan_end canceled",
		}) {
			t.Errorf("run %d: the parent's trace: %v", i, ev)
		}
		if left := testkit.ScopesLeft(t, testkit.SessionID(t, r.sess)); len(left) > 0 {
			t.Errorf("run %d: cgroups left behind: %v", i, left)
		}
	}
}

// readFile returns the file at path, "" when it cannot be read.
func readFile(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}
