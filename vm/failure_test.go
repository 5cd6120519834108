package vm_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/planc/planc/vm"
	"github.com/planc/planc/vm/vmtest"
)

// TestFailureTable drives every row of docs/plans.md's "Failure" table (S18): a
// failing step "a" and a step "b" that depends on it.
func TestFailureTable(t *testing.T) {
	tests := []struct {
		onError    string
		want       []row
		completed  bool
		failedStep string
		outcome    vm.Outcome
	}{
		// fail: settles failed, the plan stops, b is never dispatched and
		// absent from the report.
		{"fail", []row{{"a", "failed", "partial", "exit status 1"}}, false, "a", vm.Failed},
		// skip: settles skipped, keeping its output and error (S18); the
		// plan continues.
		{"skip", []row{{"a", "skipped", "partial", "exit status 1"}, {"b", "success", "", ""}}, true, "", vm.Completed},
		// continue: settles failed; the plan continues and completes (S18).
		{"continue", []row{{"a", "failed", "partial", "exit status 1"}, {"b", "success", "", ""}}, true, "", vm.Completed},
	}
	for _, tt := range tests {
		t.Run(tt.onError, func(t *testing.T) {
			prog := compile(t,
				`{"id": "a", "shell": "false", "on_error": "`+tt.onError+`"}`,
				`{"id": "b", "tool": "notes", "depends_on": ["a"]}`)
			h, run := start(t, context.Background(), prog, vm.Options{})
			h.Take(t, "a").Reply("partial", errExit1)
			if tt.completed {
				h.Take(t, "b").Reply("", nil)
			}
			rep := run.Wait(t)
			diff(t, "report", tt.want, rows(rep))
			if rep.Completed != tt.completed || rep.Canceled || rep.Failed == tt.completed || rep.Outcome != tt.outcome {
				t.Errorf("completed %v canceled %v failed %v outcome %v", rep.Completed, rep.Canceled, rep.Failed, rep.Outcome)
			}
			got := ""
			if rep.FailedStep != nil {
				got = *rep.FailedStep
			}
			diff(t, "failed_step", tt.failedStep, got)
			if h.Active() != 0 {
				t.Errorf("%d dispatches still in the host after Run returned", h.Active())
			}
		})
	}
}

// TestFailureCauses covers each way a step fails (docs/plans.md, "Failure";
// S20): a failing tool result, a non-zero exit, a sub-capsule that does not
// complete, a reference that cannot be resolved (S9); and the host's refusal
// and panic, which fail the step, never the VM.
func TestFailureCauses(t *testing.T) {
	prog := compile(t,
		`{"id": "slow", "shell": "sleep 1"}`,
		`{"id": "tool", "tool": "t", "on_error": "continue"}`,
		`{"id": "shell", "shell": "false", "on_error": "continue"}`,
		`{"id": "capsule", "capsule": "worker", "input": "do it", "on_error": "continue"}`,
		`{"id": "ref", "tool": "t", "input": {"x": "$slow.output"}, "on_error": "continue"}`,
		`{"id": "refused", "tool": "write-file", "on_error": "continue"}`,
		`{"id": "panics", "shell": "x", "on_error": "continue"}`)
	h := &vmtest.Host{Refusals: map[string]error{"refused": errors.New(`write-file: "src/a.go" is under the read-only path "src"`)}}
	run := vmtest.Start(context.Background(), prog, h, vm.Options{})
	h.Complete(t, "tool", "not found", errors.New("tool reported an error"))
	h.Complete(t, "shell", "", errExit1)
	h.Complete(t, "capsule", "", errors.New("sub-capsule exited before completing"))
	h.Take(t, "panics").Panic("boom")
	h.WaitSettled(t, "panics", 1)
	h.Complete(t, "slow", "done", nil)
	rep := run.Wait(t)
	want := []row{
		{"tool", "failed", "not found", "tool reported an error"},
		// The reference is resolved when the tool lane hands "ref" out,
		// after "tool" (S9); "slow" is still running then.
		{"ref", "failed", "", `reference $slow.output: step "slow" has not settled`},
		// The refusal is asked when the tool lane frees, before dispatch.
		{"refused", "failed", "", `write-file: "src/a.go" is under the read-only path "src"`},
		{"shell", "failed", "", "exit status 1"},
		{"capsule", "failed", "", "sub-capsule exited before completing"},
		{"panics", "failed", "", "host panic: boom"},
		{"slow", "success", "done", ""},
	}
	diff(t, "report", want, rows(rep))
	if !rep.Completed {
		t.Errorf("not completed: %s", rep.Summary)
	}
	diff(t, "summary", "Plan 'p': 7 steps, 1 succeeded, 6 failed, 0 skipped", rep.Summary)
}

// TestOnErrorRetriesOutcome runs every combination of on_error, retries
// (S19) and outcome: the step succeeding at attempt k, or failing every
// attempt.
func TestOnErrorRetriesOutcome(t *testing.T) {
	for _, onError := range []string{"fail", "skip", "continue"} {
		for retries := range 3 {
			// succeedAt 0 means every attempt fails.
			for succeedAt := range retries + 2 {
				name := fmt.Sprintf("on_error=%s/retries=%d/succeed_at=%d", onError, retries, succeedAt)
				t.Run(name, func(t *testing.T) { onErrorRetries(t, onError, retries, succeedAt) })
			}
		}
	}
}

func onErrorRetries(t *testing.T, onError string, retries, succeedAt int) {
	prog := compile(t,
		fmt.Sprintf(`{"id": "a", "tool": "t", "on_error": %q, "retries": %d}`, onError, retries),
		`{"id": "b", "shell": "true", "depends_on": ["a"]}`)
	h := &vmtest.Host{Auto: func(_ context.Context, c vm.Call) (string, error) {
		if c.Step.ID == "a" && c.Attempt != succeedAt {
			return fmt.Sprintf("out %d", c.Attempt), fmt.Errorf("attempt %d failed", c.Attempt)
		}
		return "", nil
	}}
	rep := vmtest.Start(context.Background(), prog, h, vm.Options{}).Wait(t)

	attempts := retries + 1
	if succeedAt > 0 {
		attempts = succeedAt
	}
	var wantTrace []string
	wantTrace = append(wantTrace, "plan_start")
	for k := 1; k < attempts; k++ {
		wantTrace = append(wantTrace, "start a "+itoa(k), "step a "+itoa(k)+" failed")
	}
	var wantRows []row
	outcome, bRuns := "completed", true
	switch {
	case succeedAt > 0:
		wantRows = append(wantRows, row{"a", "success", "", ""})
	case onError == "fail":
		wantRows = append(wantRows, row{"a", "failed", "out " + itoa(attempts), "attempt " + itoa(attempts) + " failed"})
		outcome, bRuns = "failed", false
	case onError == "skip":
		wantRows = append(wantRows, row{"a", "skipped", "out " + itoa(attempts), "attempt " + itoa(attempts) + " failed"})
	default:
		wantRows = append(wantRows, row{"a", "failed", "out " + itoa(attempts), "attempt " + itoa(attempts) + " failed"})
	}
	wantTrace = append(wantTrace, "start a "+itoa(attempts), "step a "+itoa(attempts)+" "+wantRows[0].Status)
	if bRuns {
		wantRows = append(wantRows, row{"b", "success", "", ""})
		wantTrace = append(wantTrace, "start b 1", "step b 1 success")
	}
	wantTrace = append(wantTrace, "end "+outcome)
	diff(t, "report", wantRows, rows(rep))
	diff(t, "trace", wantTrace, trace(h.Events()))
	if rep.Outcome.String() != outcome {
		t.Errorf("outcome %v, want %s", rep.Outcome, outcome)
	}
}

// TestRetriesStopWithThePlan: a step in flight whose attempt fails after
// another step stopped the plan is not retried: a retry is a dispatch, and
// nothing more is dispatched (S18, S19).
func TestRetriesStopWithThePlan(t *testing.T) {
	prog := compile(t,
		`{"id": "a", "shell": "a", "retries": 3, "on_error": "continue"}`,
		`{"id": "b", "shell": "b"}`)
	h, run := start(t, context.Background(), prog, vm.Options{})
	a := h.Take(t, "a")
	h.Take(t, "b").Reply("", errExit1)
	h.WaitSettled(t, "b", 1)
	a.Reply("", errors.New("a failed"))
	rep := run.Wait(t)
	diff(t, "report", []row{{"b", "failed", "", "exit status 1"}, {"a", "failed", "", "a failed"}}, rows(rep))
	diff(t, "trace", []string{"plan_start", "start a 1", "start b 1", "step b 1 failed", "step a 1 failed", "end failed"}, trace(h.Events()))
	diff(t, "failed_step", "b", *rep.FailedStep)
}
