package vm_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/planc/planc/ir"
	"github.com/planc/planc/vm"
	"github.com/planc/planc/vm/vmtest"
)

// TestReportJSON: the report's JSON has exactly the field names of
// docs/plans.md, "The report", steps in settle order, null for no output, no
// error and no failed step.
func TestReportJSON(t *testing.T) {
	prog := compile(t,
		`{"id": "a", "shell": "x", "on_error": "skip"}`,
		`{"id": "b", "tool": "t", "depends_on": ["a"]}`,
		`{"id": "c", "tool": "t", "depends_on": ["b"]}`)
	h := &vmtest.Host{Auto: func(_ context.Context, c vm.Call) (string, error) {
		switch c.Step.ID {
		case "a":
			return "", errExit1
		case "b":
			return "ok", nil
		}
		return "", errors.New("bad")
	}}
	rep := vmtest.Start(context.Background(), prog, h, vm.Options{}).Wait(t)
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	diff(t, "report", `{
  "plan_id": "p",
  "completed": false,
  "canceled": false,
  "failed_step": "c",
  "steps": [
    {
      "step_id": "a",
      "status": "skipped",
      "output": null,
      "error": "exit status 1"
    },
    {
      "step_id": "b",
      "status": "success",
      "output": "ok",
      "error": null
    },
    {
      "step_id": "c",
      "status": "failed",
      "output": null,
      "error": "bad"
    }
  ]
}`, string(b))
	diff(t, "summary", "Plan 'p': 3 steps, 1 succeeded, 1 failed, 1 skipped", rep.Summary)
	if !rep.Failed {
		t.Error("a plan that did not complete is a failed result")
	}
	var back vm.Report
	if err := json.Unmarshal(b, &back); err != nil || back.Steps[0].Status != vm.StatusSkipped {
		t.Errorf("round trip: %v %+v", err, back)
	}
}

// TestEventJSON: each event carries exactly docs/trace.md's fields.
func TestEventJSON(t *testing.T) {
	tests := []struct {
		e    vm.Event
		want string
	}{
		{vm.Event{Kind: vm.PlanStart, PlanID: "p", PlanFile: "plans/plan-2.json", Steps: 3},
			`{"event":"plan_start","plan_id":"p","plan_file":"plans/plan-2.json","steps":3}`},
		{vm.Event{Kind: vm.PlanStepStart, PlanID: "p", StepID: "a", StepKind: ir.KindShell, Attempt: 2},
			`{"event":"plan_step_start","plan_id":"p","step_id":"a","kind":"shell","attempt":2}`},
		{vm.Event{Kind: vm.PlanStep, PlanID: "p", StepID: "a", Status: vm.StatusFailed, Attempt: 1, Duration: 1500 * time.Millisecond, Error: "exit \"1\""},
			`{"event":"plan_step","plan_id":"p","step_id":"a","status":"failed","attempt":1,"duration_ms":1500,"error":"exit \"1\""}`},
		{vm.Event{Kind: vm.PlanStep, PlanID: "p", StepID: "a", Status: vm.StatusSuccess, Attempt: 1},
			`{"event":"plan_step","plan_id":"p","step_id":"a","status":"success","attempt":1,"duration_ms":0,"error":null}`},
		{vm.Event{Kind: vm.PlanEnd, PlanID: "p", Outcome: vm.Failed, FailedStep: "a", Succeeded: 1, Failed: 2, Skipped: 3},
			`{"event":"plan_end","plan_id":"p","outcome":"failed","failed_step":"a","succeeded":1,"failed":2,"skipped":3}`},
		{vm.Event{Kind: vm.PlanEnd, PlanID: "p", Outcome: vm.Canceled},
			`{"event":"plan_end","plan_id":"p","outcome":"canceled","failed_step":null,"succeeded":0,"failed":0,"skipped":0}`},
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.e)
		if err != nil {
			t.Fatal(err)
		}
		diff(t, tt.e.Kind.String(), tt.want, string(b))
		if !json.Valid(b) {
			t.Errorf("invalid JSON %s", b)
		}
		line := string(tt.e.AppendFields([]byte(`{"ts":"2026-01-01T00:00:00Z","session":"s",`))) + "}"
		if !json.Valid([]byte(line)) {
			t.Errorf("AppendFields: invalid line %s", line)
		}
	}
}

// TestDurations: duration_ms measures each attempt with Options.Now.
func TestDurations(t *testing.T) {
	prog := compile(t, `{"id": "a", "tool": "t"}`)
	var mu sync.Mutex
	clock := time.Unix(0, 0)
	now := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		clock = clock.Add(250 * time.Millisecond)
		return clock
	}
	h := &vmtest.Host{Auto: func(context.Context, vm.Call) (string, error) { return "", nil }}
	vmtest.Start(context.Background(), prog, h, vm.Options{Now: now}).Wait(t)
	for _, e := range h.Events() {
		if e.Kind == vm.PlanStep && e.Duration != 250*time.Millisecond {
			t.Errorf("duration %v, want 250ms", e.Duration)
		}
	}
}

// TestRunErrors: Run refuses to start without a host, with an invalid
// program or a negative MaxParallel; nothing is dispatched.
func TestRunErrors(t *testing.T) {
	good := compile(t, `{"id": "a", "tool": "t"}`)
	bad := &ir.Program{ID: "p", Steps: []ir.Step{{ID: "a", Kind: ir.KindTool, Deps: []int32{0}}}, InDegree: []int32{1}}
	h := &vmtest.Host{}
	for name, run := range map[string]func() error{
		"nil host":     func() error { _, err := vm.Run(context.Background(), good, nil, vm.Options{}); return err },
		"nil program":  func() error { _, err := vm.Run(context.Background(), nil, h, vm.Options{}); return err },
		"cycle":        func() error { _, err := vm.Run(context.Background(), bad, h, vm.Options{}); return err },
		"max parallel": func() error { _, err := vm.Run(context.Background(), good, h, vm.Options{MaxParallel: -1}); return err },
	} {
		if err := run(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if len(h.Events()) != 0 {
		t.Errorf("events from a run that did not start: %v", h.Events())
	}
}

// TestConcurrentRuns: one Program runs many times at once (it is
// immutable; each run's state is its own), under -race.
func TestConcurrentRuns(t *testing.T) {
	prog := compile(t, dagPlan(200, 7)...)
	var wg sync.WaitGroup
	reports := make([]vm.Report, 8)
	for k := range reports {
		wg.Go(func() {
			h := &vmtest.Host{Auto: func(_ context.Context, c vm.Call) (string, error) { return c.Step.ID, nil }}
			reports[k], _ = vm.Run(context.Background(), prog, h, vm.Options{MaxParallel: k})
		})
	}
	wg.Wait()
	for k, rep := range reports {
		if !rep.Completed || len(rep.Steps) != 200 {
			t.Errorf("run %d: %s", k, rep.Summary)
		}
	}
}
