package serve

import (
	"testing"

	"github.com/planc/planc/vm"
)

// TestProgressFinal: a plan_step counts as a settled step only when the
// VM says it is final. In a redrive, attempt numbers go on past the
// step's retries (attempt 3 of a step with retries 1): the failed attempt
// a retry follows is still not a settling.
func TestProgressFinal(t *testing.T) {
	p := &progress{token: "tok", wake: make(chan struct{}, 1)}
	for _, e := range []vm.Event{
		{Kind: vm.PlanStart, Steps: 2},
		{Kind: vm.PlanStep, StepID: "build", Status: vm.StatusSuccess, Attempt: 1, Reused: true, Final: true},
		{Kind: vm.PlanStepStart, StepID: "a", Attempt: 3},
		{Kind: vm.PlanStep, StepID: "a", Status: vm.StatusFailed, Attempt: 3, Error: "boom"},
		{Kind: vm.PlanStepStart, StepID: "a", Attempt: 4},
		{Kind: vm.PlanStep, StepID: "a", Status: vm.StatusFailed, Attempt: 4, Error: "boom\nmore", Final: true, Stopped: true},
		{Kind: vm.PlanEnd, Outcome: vm.Failed},
	} {
		p.observe(nil, e)
	}
	var got []string
	for _, n := range p.queue {
		got = append(got, progressLine(n))
	}
	want := []string{"tok 1/2 build: success", "tok 2/2 a: failed: boom"}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("progress %q, want %q", got, want)
	}
}
