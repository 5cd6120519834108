package vm_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/planc/planc/vm"
	"github.com/planc/planc/vm/vmtest"
)

// checkCanceled asserts the report fields docs/plans.md, "Cancel", fixes for a
// cancelled plan: canceled true, completed false, failed_step null, plan_end
// outcome canceled, and the "was cancelled" summary (S21).
func checkCanceled(t *testing.T, h *vmtest.Host, rep vm.Report, summary string) {
	t.Helper()
	if !rep.Canceled || rep.Completed || rep.FailedStep != nil || !rep.Failed || rep.Outcome != vm.Canceled {
		t.Errorf("canceled %v completed %v failed_step %v failed %v outcome %v", rep.Canceled, rep.Completed, rep.FailedStep, rep.Failed, rep.Outcome)
	}
	evs := h.Events()
	if end := evs[len(evs)-1]; end.Kind != vm.PlanEnd || end.Outcome != vm.Canceled || end.FailedStep != "" {
		t.Errorf("last event %+v, want plan_end canceled", end)
	}
	diff(t, "summary", summary, rep.Summary)
	if h.Active() != 0 {
		t.Errorf("%d dispatches still in the host after Run returned", h.Active())
	}
}

// TestCancelRunningCapsule is the cancel table's first row: a capsule step
// whose sub-capsule is running is told to end through its context and
// settles failed with the cancel's error (docs/plans.md, "Cancel"); it is not
// retried and on_error does not apply.
func TestCancelRunningCapsule(t *testing.T) {
	prog := compile(t,
		`{"id": "w", "capsule": "worker", "input": "task", "retries": 2, "on_error": "skip"}`,
		`{"id": "after", "tool": "notes", "depends_on": ["w"]}`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h, run := start(t, ctx, prog, vm.Options{})
	d := h.Take(t, "w")
	if d.Call.Objective != "task" {
		t.Errorf("objective %q", d.Call.Objective)
	}
	cancel()
	// The fake host, like a real one, returns once its context is done.
	rep := run.Wait(t)
	if d.Ctx.Err() == nil {
		t.Error("the capsule's context was not cancelled")
	}
	diff(t, "report", []row{{"after", "skipped", "", vm.CanceledBeforeRun}, {"w", "failed", "", vm.CapsuleEnded}}, rows(rep))
	diff(t, "trace", []string{"plan_start", "start w 1", "step after 0 skipped", "step w 1 failed", "end canceled"}, trace(h.Events()))
	checkCanceled(t, h, rep, "Plan 'p' was cancelled: 2 steps, 0 succeeded, 1 failed, 1 skipped")
}

// TestCancelAfterCapsuleExited: a sub-capsule that exited on its own
// before the cancel reached it was not ended by the cancel (the table's
// first row is a sub-capsule still running). Its host says so with
// vm.CapsuleExited while it is still judging and keeping the answer, and
// the step settles with its own result, as its delegation line says: a
// completed one succeeds, a failed one fails with its own error, and,
// the task being cancelled, neither retries nor on_error apply.
func TestCancelAfterCapsuleExited(t *testing.T) {
	prog := compile(t,
		`{"id": "ok", "capsule": "worker", "input": "task", "retries": 2}`,
		`{"id": "bad", "capsule": "worker", "input": "task", "retries": 2, "on_error": "skip"}`,
		`{"id": "after", "tool": "notes", "depends_on": ["ok"]}`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	exited := make(chan struct{}, 2)
	h := &vmtest.Host{Auto: func(ctx context.Context, c vm.Call) (string, error) {
		vm.CapsuleExited(ctx) // the sub-capsule has exited on its own
		exited <- struct{}{}
		<-ctx.Done() // the cancel lands while the answer is being kept
		if c.Step.ID == "bad" {
			return "half an answer", errExit1
		}
		return "the answer", nil
	}}
	run := vmtest.Start(ctx, prog, h, vm.Options{})
	<-exited
	<-exited
	cancel()
	rep := run.Wait(t)
	want := map[string]row{
		"after": {"after", "skipped", "", vm.CanceledBeforeRun},
		"ok":    {"ok", "success", "the answer", ""},
		"bad":   {"bad", "failed", "half an answer", "exit status 1"},
	}
	for _, r := range rows(rep) {
		diff(t, "step "+r.ID, want[r.ID], r)
	}
	if len(rep.Steps) != 3 {
		t.Errorf("report: %v", rows(rep))
	}
	checkCanceled(t, h, rep, "Plan 'p' was cancelled: 3 steps, 1 succeeded, 1 failed, 1 skipped")
	// Outside a SpawnCapsule call it does nothing.
	vm.CapsuleExited(context.Background())
}

// TestCancelStartingCapsule is the second row: a capsule whose launch is
// still being started when the cancel lands ends the same way (the host
// sees its context already done). A host that answers anyway does not
// change the outcome.
func TestCancelStartingCapsule(t *testing.T) {
	prog := compile(t, `{"id": "w", "capsule": "worker", "input": {"objective": "task"}, "retries": 1}`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h := &vmtest.Host{
		OnEvent: func(e vm.Event) {
			if e.Kind == vm.PlanStepStart && e.StepID == "w" {
				cancel() // the launch is under way, the sub-capsule not up yet
			}
		},
		Auto: func(ctx context.Context, c vm.Call) (string, error) {
			<-ctx.Done()
			return "an answer after all", nil
		},
	}
	rep := vmtest.Start(ctx, prog, h, vm.Options{}).Wait(t)
	diff(t, "report", []row{{"w", "failed", "an answer after all", vm.CapsuleEnded}}, rows(rep))
	diff(t, "trace", []string{"plan_start", "start w 1", "step w 1 failed", "end canceled"}, trace(h.Events()))
	checkCanceled(t, h, rep, "Plan 'p' was cancelled: 1 steps, 0 succeeded, 1 failed, 0 skipped")
}

// TestCancelRunningToolAndShell is the third row: tool and shell steps
// already running run to their own end with contexts the cancel does not
// reach (S22), and settle with their own result: no retry, no on_error, so
// a failure under on_error fail does not set failed_step.
func TestCancelRunningToolAndShell(t *testing.T) {
	prog := compile(t,
		`{"id": "t", "tool": "notes", "retries": 2}`,
		`{"id": "s", "shell": "go test ./...", "on_error": "skip"}`,
		`{"id": "ok", "shell": "true"}`,
		`{"id": "after", "tool": "notes", "depends_on": ["t"]}`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h, run := start(t, ctx, prog, vm.Options{})
	tool, shell, ok := h.Take(t, "t"), h.Take(t, "s"), h.Take(t, "ok")
	cancel()
	h.WaitSettled(t, "after", 0) // the cancel has landed
	for _, d := range []*vmtest.Dispatch{tool, shell, ok} {
		if d.Ctx.Err() != nil {
			t.Errorf("%s: the context of a running %s step was cancelled", d.Call.Step.ID, d.Call.Step.Kind)
		}
	}
	tool.Reply("", errors.New("tool failed"))
	h.WaitSettled(t, "t", 1)
	shell.Reply("FAIL", errExit1)
	h.WaitSettled(t, "s", 1)
	ok.Reply("fine", nil)
	rep := run.Wait(t)
	diff(t, "report", []row{{"after", "skipped", "", vm.CanceledBeforeRun}, {"t", "failed", "", "tool failed"}, {"s", "failed", "FAIL", "exit status 1"}, {"ok", "success", "fine", ""}}, rows(rep))
	checkCanceled(t, h, rep, "Plan 'p' was cancelled: 4 steps, 1 succeeded, 2 failed, 1 skipped")
}

// TestCancelToolGrace: a tool call running when the cancel lands settles
// with its own result while its grace lasts; one still running when the
// grace ends (or at Abort, or at once under a negative grace) has its
// context cancelled, and settles failed with ToolEnded, not retried.
func TestCancelToolGrace(t *testing.T) {
	prog := compile(t,
		`{"id": "t", "tool": "fetch", "retries": 2}`,
		`{"id": "after", "tool": "notes", "depends_on": ["t"]}`)
	abort := make(chan struct{})
	close(abort)
	for _, tc := range []struct {
		name  string
		opts  vm.Options
		ends  bool // the call's context ends
		reply string
		want  row
	}{
		{"answers in the grace", vm.Options{}, false, "fetched", row{"t", "success", "fetched", ""}},
		{"grace ends", vm.Options{ToolGrace: time.Millisecond}, true, "", row{"t", "failed", "", vm.ToolEnded}},
		{"abort", vm.Options{ToolGrace: time.Hour, Abort: abort}, true, "", row{"t", "failed", "", vm.ToolEnded}},
		{"no grace", vm.Options{ToolGrace: -1}, true, "", row{"t", "failed", "", vm.ToolEnded}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			h, run := start(t, ctx, prog, tc.opts)
			d := h.Take(t, "t")
			cancel()
			h.WaitSettled(t, "after", 0)
			if tc.ends {
				<-d.Ctx.Done() // the grace ends, or has
				d.Reply("", d.Ctx.Err())
			} else {
				if d.Ctx.Err() != nil {
					t.Error("the call's context was cancelled with the task")
				}
				d.Reply(tc.reply, nil)
			}
			rep := run.Wait(t)
			diff(t, "report", []row{{"after", "skipped", "", vm.CanceledBeforeRun}, tc.want}, rows(rep))
			diff(t, "trace", []string{"plan_start", "start t 1", "step after 0 skipped", "step t 1 " + tc.want.Status, "end canceled"}, trace(h.Events()))
		})
	}
}

// TestCancelNotDispatched is the fourth row: steps not dispatched never
// run and settle skipped with the cancel's error (docs/plans.md, "Cancel"), in
// plan order, at once; that includes a tool step waiting for the tool lane
// (S22). They get a plan_step line (attempt 0) and no plan_step_start.
func TestCancelNotDispatched(t *testing.T) {
	prog := compile(t,
		`{"id": "t1", "tool": "a"}`,
		`{"id": "t2", "tool": "b"}`,
		`{"id": "c", "shell": "x", "depends_on": ["t1"]}`,
		`{"id": "d", "capsule": "worker", "input": "x", "depends_on": ["c"]}`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h, run := start(t, ctx, prog, vm.Options{})
	t1 := h.Take(t, "t1")
	cancel()
	h.WaitSettled(t, "d", 0)
	t1.Reply("listed", nil)
	rep := run.Wait(t)
	diff(t, "report", []row{
		{"t2", "skipped", "", vm.CanceledBeforeRun},
		{"c", "skipped", "", vm.CanceledBeforeRun},
		{"d", "skipped", "", vm.CanceledBeforeRun},
		{"t1", "success", "listed", ""},
	}, rows(rep))
	diff(t, "trace", []string{"plan_start", "start t1 1", "step t2 0 skipped", "step c 0 skipped", "step d 0 skipped", "step t1 1 success", "end canceled"}, trace(h.Events()))
	checkCanceled(t, h, rep, "Plan 'p' was cancelled: 4 steps, 1 succeeded, 0 failed, 3 skipped")
}

// TestCancelBeforeRun: a context already cancelled runs nothing; every step
// settles skipped as not dispatched.
func TestCancelBeforeRun(t *testing.T) {
	prog := compile(t, `{"id": "a", "tool": "t"}`, `{"id": "b", "shell": "x", "depends_on": ["a"]}`)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	h, run := start(t, ctx, prog, vm.Options{})
	rep := run.Wait(t)
	diff(t, "report", []row{{"a", "skipped", "", vm.CanceledBeforeRun}, {"b", "skipped", "", vm.CanceledBeforeRun}}, rows(rep))
	diff(t, "trace", []string{"plan_start", "step a 0 skipped", "step b 0 skipped", "end canceled"}, trace(h.Events()))
	checkCanceled(t, h, rep, "Plan 'p' was cancelled: 2 steps, 0 succeeded, 0 failed, 2 skipped")
}

// TestCancelDuringDispatch: a cancel landing while the VM dispatches stops
// it before the next dispatch (here: inside the first step's plan_step_start
// line); the rest never runs.
func TestCancelDuringDispatch(t *testing.T) {
	prog := compile(t, `{"id": "a", "shell": "x"}`, `{"id": "b", "shell": "y"}`, `{"id": "c", "shell": "z"}`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h := &vmtest.Host{OnEvent: func(e vm.Event) {
		if e.Kind == vm.PlanStepStart && e.StepID == "a" {
			cancel()
		}
	}}
	run := vmtest.Start(ctx, prog, h, vm.Options{})
	h.Take(t, "a").Reply("", nil)
	rep := run.Wait(t)
	diff(t, "report", []row{{"b", "skipped", "", vm.CanceledBeforeRun}, {"c", "skipped", "", vm.CanceledBeforeRun}, {"a", "success", "", ""}}, rows(rep))
	checkCanceled(t, h, rep, "Plan 'p' was cancelled: 3 steps, 1 succeeded, 0 failed, 2 skipped")
}

// TestCapsuleCompletedBeforeCancel: a sub-capsule that finished before the
// cancel landed keeps its own result.
func TestCapsuleCompletedBeforeCancel(t *testing.T) {
	prog := compile(t,
		`{"id": "w", "capsule": "worker", "input": "x"}`,
		`{"id": "s", "shell": "x"}`,
		`{"id": "after", "tool": "t", "depends_on": ["w", "s"]}`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h, run := start(t, ctx, prog, vm.Options{})
	s := h.Take(t, "s")
	h.Complete(t, "w", "answer", nil)
	cancel()
	s.Reply("", nil)
	rep := run.Wait(t)
	diff(t, "report", []row{{"w", "success", "answer", ""}, {"after", "skipped", "", vm.CanceledBeforeRun}, {"s", "success", "", ""}}, rows(rep))
	checkCanceled(t, h, rep, "Plan 'p' was cancelled: 3 steps, 2 succeeded, 0 failed, 1 skipped")
}

// TestCancelAfterFailStop: S30 (V12): a cancel that lands after a
// fail-stop, while a step still runs, makes the plan cancelled: canceled
// true, failed_step null, plan_end canceled, the "was cancelled" summary.
// No on_error policy applies once the task is cancelled, so the steps the
// fail-stop left undispatched settle skipped as any cancel settles them,
// and the running capsule is ended.
func TestCancelAfterFailStop(t *testing.T) {
	prog := compile(t,
		`{"id": "w", "capsule": "worker", "input": "x"}`,
		`{"id": "bad", "shell": "false"}`,
		`{"id": "never", "tool": "t", "depends_on": ["w"]}`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h, run := start(t, ctx, prog, vm.Options{})
	w := h.Take(t, "w")
	h.Complete(t, "bad", "", errExit1)
	cancel()
	rep := run.Wait(t)
	if w.Ctx.Err() == nil {
		t.Error("the running capsule's context was not cancelled")
	}
	diff(t, "report", []row{{"bad", "failed", "", "exit status 1"}, {"never", "skipped", "", vm.CanceledBeforeRun}, {"w", "failed", "", vm.CapsuleEnded}}, rows(rep))
	diff(t, "trace", []string{"plan_start", "start w 1", "start bad 1", "step bad 1 failed", "step never 0 skipped", "step w 1 failed", "end canceled"}, trace(h.Events()))
	checkCanceled(t, h, rep, "Plan 'p' was cancelled: 3 steps, 0 succeeded, 2 failed, 1 skipped")
}

// TestFailStopThenLateCancel: a cancel that lands only after Run has
// returned (nothing was still running after the fail-stop) changes
// nothing: the plan failed, with its failed_step.
func TestFailStopThenLateCancel(t *testing.T) {
	prog := compile(t, `{"id": "bad", "shell": "false"}`, `{"id": "never", "tool": "t", "depends_on": ["bad"]}`)
	ctx, cancel := context.WithCancel(context.Background())
	h, run := start(t, ctx, prog, vm.Options{})
	h.Complete(t, "bad", "", errExit1)
	rep := run.Wait(t)
	cancel()
	diff(t, "report", []row{{"bad", "failed", "", "exit status 1"}}, rows(rep))
	if rep.Canceled || rep.FailedStep == nil || *rep.FailedStep != "bad" || rep.Outcome != vm.Failed {
		t.Errorf("canceled %v failed_step %v outcome %v", rep.Canceled, rep.FailedStep, rep.Outcome)
	}
	diff(t, "summary", "Plan 'p': 2 steps, 0 succeeded, 1 failed, 0 skipped", rep.Summary)
}
