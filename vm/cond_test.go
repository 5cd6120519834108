package vm_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/planc/planc/vm"
	"github.com/planc/planc/vm/vmtest"
)

// TestConditionsOverUpstream evaluates `if` over an upstream step that
// settled success, failed (on_error continue) or skipped (on_error skip),
// with == and != against each status word (S10, S11). A false condition
// settles the step skipped, without output or error and without a
// plan_step_start (S12).
func TestConditionsOverUpstream(t *testing.T) {
	for _, upstream := range []string{"success", "failed", "skipped"} {
		for _, op := range []string{"==", "!="} {
			for _, lit := range []string{"success", "failed", "skipped"} {
				name := fmt.Sprintf("%s/%s_%s", upstream, op, lit)
				t.Run(name, func(t *testing.T) {
					onError := map[string]string{"success": "fail", "failed": "continue", "skipped": "skip"}[upstream]
					prog := compile(t,
						`{"id": "u", "shell": "x", "on_error": "`+onError+`"}`,
						fmt.Sprintf(`{"id": "d", "tool": "t", "depends_on": ["u"], "if": "$u.status %s '%s'"}`, op, lit))
					h := &vmtest.Host{Auto: func(_ context.Context, c vm.Call) (string, error) {
						if c.Step.ID == "u" && upstream != "success" {
							return "", errExit1
						}
						return "ran", nil
					}}
					rep := vmtest.Start(context.Background(), prog, h, vm.Options{}).Wait(t)
					runs := (upstream == lit) == (op == "==")
					want := row{"d", "skipped", "", ""}
					wantTrace := "step d 0 skipped"
					if runs {
						want = row{"d", "success", "ran", ""}
						wantTrace = "step d 1 success"
					}
					diff(t, "d", want, rows(rep)[1])
					tr := trace(h.Events())
					diff(t, "d's trace", wantTrace, tr[len(tr)-2])
					if runs == (tr[len(tr)-3] != "start d 1") {
						t.Errorf("plan_step_start of d: trace %v", tr)
					}
				})
			}
		}
	}
}

// TestConditionOutput: $x.output reads the output text in a condition, and
// the empty string when the step produced none (S8); > and < compare bytes
// (S11); && binds tighter than || and both short-circuit (S10).
func TestConditionOutput(t *testing.T) {
	tests := []struct {
		cond string
		runs bool
	}{
		{`$a.output == 'hello'`, true},
		{`$none.output == ''`, true},
		{`$none.output != ''`, false},
		{`$a.output > 'g' && $a.output < 'i'`, true},
		{`'10' < '9'`, true},
		{`$a.output == 'x' || $none.output == '' && $a.status == 'success'`, true},
		{`$a.output == 'x' || $none.output == 'y' && $a.status == 'success'`, false},
		{`$a.status == "success" && $none.status == 'success'`, true},
	}
	for _, tt := range tests {
		t.Run(tt.cond, func(t *testing.T) {
			prog := compile(t,
				`{"id": "a", "shell": "echo hello"}`,
				`{"id": "none", "shell": "true"}`,
				fmt.Sprintf(`{"id": "d", "tool": "t", "depends_on": ["a", "none"], "if": %q}`, tt.cond))
			h := &vmtest.Host{Auto: func(_ context.Context, c vm.Call) (string, error) {
				if c.Step.ID == "a" {
					return "hello", nil
				}
				return "", nil
			}}
			rep := vmtest.Start(context.Background(), prog, h, vm.Options{}).Wait(t)
			d := rows(rep)[2]
			if (d.Status == "success") != tt.runs {
				t.Errorf("d %+v, want it to run: %v", d, tt.runs)
			}
		})
	}
}

// TestUnsettledReference is S9: a step naming a step that has not settled
// fails with S9's error and is not dispatched; retries do not apply,
// on_error does. The reference may be in input or in if.
func TestUnsettledReference(t *testing.T) {
	for _, where := range []string{"input", "if"} {
		for _, onError := range []string{"fail", "skip", "continue"} {
			t.Run(where+"/"+onError, func(t *testing.T) {
				ref := `"input": {"log": "$slow.output"}`
				if where == "if" {
					ref = `"if": "$slow.status == 'success'"`
				}
				prog := compile(t,
					`{"id": "slow", "shell": "sleep 1"}`,
					`{"id": "r", "tool": "t", "retries": 2, "on_error": "`+onError+`", `+ref+`}`)
				h, run := start(t, context.Background(), prog, vm.Options{})
				// slow, first in plan order, is dispatched before r is
				// admitted: S18 lets it finish even when r stops the plan.
				h.Take(t, "slow").Reply("done", nil)
				rep := run.Wait(t)
				msg := `reference $slow.` + map[string]string{"input": "output", "if": "status"}[where] + `: step "slow" has not settled`
				status := map[string]string{"fail": "failed", "skip": "skipped", "continue": "failed"}[onError]
				diff(t, "report", []row{{"r", status, "", msg}, {"slow", "success", "done", ""}}, rows(rep))
				diff(t, "trace", []string{"plan_start", "start slow 1", "step r 0 " + status, "step slow 1 success", "end " + map[bool]string{true: "failed", false: "completed"}[onError == "fail"]}, trace(h.Events()))
			})
		}
	}
}

// TestSettledNonDependency: a reference to a step that is not a dependency
// but has settled by the time the step is dispatched resolves (S9 only fails an
// unsettled one; check warns about it).
func TestSettledNonDependency(t *testing.T) {
	prog := compile(t,
		`{"id": "a", "tool": "t"}`,
		`{"id": "b", "tool": "t", "depends_on": ["a"]}`,
		`{"id": "c", "tool": "t", "depends_on": ["b"], "input": "$a.output"}`)
	h := &vmtest.Host{Auto: func(_ context.Context, c vm.Call) (string, error) { return "from " + c.Step.ID, nil }}
	rep := vmtest.Start(context.Background(), prog, h, vm.Options{}).Wait(t)
	diff(t, "report", []row{{"a", "success", "from a", ""}, {"b", "success", "from b", ""}, {"c", "success", "from c", ""}}, rows(rep))
}
