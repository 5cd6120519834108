package vm_test

import (
	"context"
	"errors"
	"testing"

	"github.com/planc/planc/vm"
)

// TestPlanStepFinal: a plan_step says whether it settles its step (Final:
// false only for a failed attempt a retry follows) and whether it stopped
// the plan (Stopped: the failed_step's final line only), also in a
// redrive, whose attempt numbers go on past the step's retries.
func TestPlanStepFinal(t *testing.T) {
	prog := compile(t,
		`{"id": "a", "shell": "x", "retries": 1}`,
		`{"id": "b", "shell": "y"}`,
		`{"id": "c", "tool": "t", "depends_on": ["a"]}`)
	for _, prior := range [][]vm.Prior{nil, {{Status: vm.StatusFailed, Attempt: 2}, {Status: vm.StatusFailed, Attempt: 5}, {}}} {
		h, run := start(t, context.Background(), prog, vm.Options{Prior: prior})
		base := 0
		if prior != nil {
			base = 2
		}
		b := h.Take(t, "b")
		h.Complete(t, "a", "", errors.New("boom"))
		h.Complete(t, "a", "", errors.New("boom again"))
		b.Reply("", errors.New("late"))
		rep := run.Wait(t)
		if rep.FailedStep == nil || *rep.FailedStep != "a" {
			t.Fatalf("failed_step %v", rep.FailedStep)
		}
		type mark struct {
			ID             string
			Attempt        int
			Final, Stopped bool
		}
		var got []mark
		for _, e := range h.Events() {
			if e.Kind == vm.PlanStep {
				got = append(got, mark{e.StepID, e.Attempt, e.Final, e.Stopped})
			}
		}
		bAttempt := 1
		if prior != nil {
			bAttempt = 6
		}
		want := []mark{{"a", base + 1, false, false}, {"a", base + 2, true, true}, {"b", bAttempt, true, false}}
		diff(t, "plan_step marks", want, got)
	}
}
