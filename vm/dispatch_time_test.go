package vm_test

import (
	"context"
	"testing"

	"github.com/planc/planc/vm"
)

// The dispatch-time rule (S9): a step's references are resolved and its
// condition evaluated when it is dispatched — when the tool lane hands a
// tool step out, or a --max-parallel slot frees for a shell or capsule
// step — not when it became ready and began to wait. Each case has a
// blocker that holds the lane or the only slot, an upstream step "s" that
// runs beside it (a shell step beside a tool blocker, a tool step beside a
// shell blocker), and a step "x" with no depends_on that refers to "s".

// waitCase is one lane or slot a step can wait for.
type waitCase struct {
	name    string
	opts    vm.Options
	blocker string // holds the lane or the slot
	s       string // the upstream step, runs beside the blocker
	// x returns the waiting step with ref in its input or objective, or
	// with cond as its condition.
	x func(ref, cond string) string
	// seen returns what x's dispatch received of ref.
	seen func(c vm.Call) string
}

var waitCases = []waitCase{
	{
		name:    "tool lane",
		blocker: `{"id": "t1", "tool": "slow"}`,
		s:       `{"id": "s", "shell": "echo fast"}`,
		x: func(ref, cond string) string {
			if cond != "" {
				return `{"id": "x", "tool": "notes", "if": "` + cond + `", "retries": 2, "on_error": "continue"}`
			}
			return `{"id": "x", "tool": "notes", "input": {"body": "` + ref + `"}, "retries": 2, "on_error": "continue"}`
		},
		seen: func(c vm.Call) string { return string(c.Input) },
	},
	{
		name:    "max-parallel slot",
		opts:    vm.Options{MaxParallel: 1},
		blocker: `{"id": "t1", "shell": "sleep 2"}`,
		s:       `{"id": "s", "tool": "fast"}`,
		x: func(ref, cond string) string {
			if cond != "" {
				return `{"id": "x", "shell": "echo x", "if": "` + cond + `", "retries": 2, "on_error": "continue"}`
			}
			return `{"id": "x", "capsule": "worker", "input": "` + ref + `", "retries": 2, "on_error": "continue"}`
		},
		seen: func(c vm.Call) string { return c.Objective },
	},
}

// TestReferenceSettlesWhileWaiting: "s" settles while "x" waits; "x" is
// dispatched with s's real output.
func TestReferenceSettlesWhileWaiting(t *testing.T) {
	for _, wc := range waitCases {
		t.Run(wc.name, func(t *testing.T) {
			prog := compile(t, wc.blocker, wc.s, wc.x("$s.output", ""))
			h, run := start(t, context.Background(), prog, wc.opts)
			blocker := h.Take(t, "t1")
			h.Complete(t, "s", "fast", nil)
			blocker.Reply("", nil)
			x := h.Take(t, "x")
			got := wc.seen(x.Call)
			x.Reply("done", nil)
			rep := run.Wait(t)
			want := map[string]string{"tool lane": `{"body":"fast"}`, "max-parallel slot": "fast"}[wc.name]
			diff(t, "x's input", want, got)
			diff(t, "report", []row{{"s", "success", "fast", ""}, {"t1", "success", "", ""}, {"x", "success", "done", ""}}, rows(rep))
		})
	}
}

// TestConditionTurnsTrueWhileWaiting: when "x" became ready, "s" had not
// settled and its status could not be read; by the dispatch it has, the
// condition holds, and "x" runs.
func TestConditionTurnsTrueWhileWaiting(t *testing.T) {
	for _, wc := range waitCases {
		t.Run(wc.name, func(t *testing.T) {
			prog := compile(t, wc.blocker, wc.s, wc.x("", "$s.status == 'success' && $s.output == 'fast'"))
			h, run := start(t, context.Background(), prog, wc.opts)
			blocker := h.Take(t, "t1")
			h.Complete(t, "s", "fast", nil)
			blocker.Reply("", nil)
			h.Complete(t, "x", "ran", nil)
			rep := run.Wait(t)
			diff(t, "report", []row{{"s", "success", "fast", ""}, {"t1", "success", "", ""}, {"x", "success", "ran", ""}}, rows(rep))
		})
	}
}

// TestConditionTurnsFalseWhileWaiting: the condition is false at the
// dispatch; "x" settles skipped then, and the lane or slot goes to the
// next step at once.
func TestConditionTurnsFalseWhileWaiting(t *testing.T) {
	for _, wc := range waitCases {
		t.Run(wc.name, func(t *testing.T) {
			next := `{"id": "y", "tool": "after"}`
			if wc.opts.MaxParallel > 0 {
				next = `{"id": "y", "shell": "after"}`
			}
			prog := compile(t, wc.blocker, wc.s, wc.x("", "$s.status == 'failed'"), next)
			h, run := start(t, context.Background(), prog, wc.opts)
			blocker := h.Take(t, "t1")
			h.Complete(t, "s", "fast", nil)
			blocker.Reply("", nil)
			h.Complete(t, "y", "", nil)
			rep := run.Wait(t)
			diff(t, "report", []row{{"s", "success", "fast", ""}, {"t1", "success", "", ""}, {"x", "skipped", "", ""}, {"y", "success", "", ""}}, rows(rep))
			for _, e := range h.Events() {
				if e.Kind == vm.PlanStepStart && e.StepID == "x" {
					t.Errorf("x was dispatched: %+v", e)
				}
			}
		})
	}
}

// TestReferenceUnsettledAtDispatch: "s" is still running when the lane or
// the slot reaches "x": "x" fails with S9's error, attempt 0, and is not
// dispatched; its retries do not apply, its on_error (continue) does.
func TestReferenceUnsettledAtDispatch(t *testing.T) {
	for _, wc := range waitCases {
		for _, form := range []string{"reference", "condition"} {
			t.Run(wc.name+"/"+form, func(t *testing.T) {
				x, field := wc.x("$s.output", ""), "output"
				if form == "condition" {
					x, field = wc.x("", "$s.status == 'success'"), "status"
				}
				prog := compile(t, wc.blocker, wc.s, x)
				h, run := start(t, context.Background(), prog, wc.opts)
				s := h.Take(t, "s")
				h.Complete(t, "t1", "", nil)
				msg := `reference $s.` + field + `: step "s" has not settled`
				e := h.WaitSettled(t, "x", 0)
				if e.Status != vm.StatusFailed || e.Error != msg || !e.Final {
					t.Errorf("x's plan_step: %+v", e)
				}
				s.Reply("late", nil)
				rep := run.Wait(t)
				diff(t, "report", []row{{"t1", "success", "", ""}, {"x", "failed", "", msg}, {"s", "success", "late", ""}}, rows(rep))
				if !rep.Completed {
					t.Errorf("not completed: %s", rep.Summary)
				}
				for _, e := range h.Events() {
					if e.Kind == vm.PlanStepStart && e.StepID == "x" {
						t.Errorf("x was dispatched: %+v", e)
					}
				}
			})
		}
	}
}
