package vm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/planc/planc/vm"
	"github.com/planc/planc/vm/vmtest"
)

// TestEmptyPlan: a plan with no steps completes having done nothing.
func TestEmptyPlan(t *testing.T) {
	prog := compile(t)
	h, run := start(t, context.Background(), prog, vmOpts())
	rep := run.Wait(t)
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	diff(t, "report", `{"plan_id":"p","completed":true,"canceled":false,"failed_step":null,"steps":[]}`, string(b))
	diff(t, "summary", "Plan 'p': 0 steps, 0 succeeded, 0 failed, 0 skipped", rep.Summary)
	diff(t, "trace", []string{
		`{"event":"plan_start","plan_id":"p","plan_file":"plans/plan-1.json","steps":0}`,
		`{"event":"plan_end","plan_id":"p","outcome":"completed","failed_step":null,"succeeded":0,"failed":0,"skipped":0}`,
	}, lines(h.Events()))
	if rep.Failed {
		t.Error("an empty plan is not a failed result")
	}
}

// TestToolLane is S17: at most one tool step runs at a time, the ready tool
// step earliest in plan order goes next, and shell and capsule steps run
// beside it and beside each other.
func TestToolLane(t *testing.T) {
	prog := compile(t,
		`{"id": "t1", "tool": "a"}`,
		`{"id": "t2", "tool": "b"}`,
		`{"id": "s1", "shell": "x"}`,
		`{"id": "w", "capsule": "worker", "input": "x"}`,
		`{"id": "t0", "tool": "c", "depends_on": ["s1"]}`)
	h, run := start(t, context.Background(), prog, vm.Options{})
	t1, s1, w := h.Take(t, "t1"), h.Take(t, "s1"), h.Take(t, "w")
	s1.Reply("", nil)
	h.WaitSettled(t, "s1", 1)
	// t0 is ready now, but t2 comes first in plan order.
	t1.Reply("", nil)
	h.WaitSettled(t, "t1", 1)
	h.Complete(t, "t2", "", nil)
	h.Complete(t, "t0", "", nil)
	w.Reply("", nil)
	run.Wait(t)
	diff(t, "trace", []string{
		"plan_start", "start t1 1", "start s1 1", "start w 1",
		"step s1 1 success", "step t1 1 success", "start t2 1", "step t2 1 success",
		"start t0 1", "step t0 1 success", "step w 1 success", "end completed",
	}, trace(h.Events()))
	if h.MaxTools() != 1 {
		t.Errorf("%d tool steps ran at once", h.MaxTools())
	}
}

// TestMaxParallel: Options.MaxParallel caps shell and capsule steps in
// flight; the tool lane is apart from it.
func TestMaxParallel(t *testing.T) {
	prog := compile(t,
		`{"id": "a", "shell": "x"}`, `{"id": "b", "shell": "x"}`, `{"id": "c", "capsule": "w", "input": "x"}`, `{"id": "t", "tool": "x"}`)
	h, run := start(t, context.Background(), prog, vm.Options{MaxParallel: 2})
	a := h.Take(t, "a")
	h.Complete(t, "t", "", nil)
	h.Complete(t, "b", "", nil)
	a.Reply("", nil)
	h.WaitSettled(t, "a", 1)
	h.Complete(t, "c", "", nil)
	run.Wait(t)
	diff(t, "trace", []string{
		"plan_start", "start a 1", "start b 1", "start t 1",
		"step t 1 success", "step b 1 success", "start c 1", "step a 1 success", "step c 1 success", "end completed",
	}, trace(h.Events()))
}

// TestInputSubstitution is S8: references that are a whole string are
// substituted at any depth as JSON strings, null for an output that is
// none; anything else, keys included (S7), stays as written.
func TestInputSubstitution(t *testing.T) {
	prog := compile(t,
		`{"id": "a", "shell": "x"}`,
		`{"id": "none", "shell": "true"}`,
		`{"id": "t", "tool": "notes", "depends_on": ["a", "none"], "input": {"body": "$a.output", "$a.output": ["$a.status", "$none.output", {"n": 1.50, "b": true}], "text": "see $a.output"}}`,
		`{"id": "s", "tool": "notes", "depends_on": ["a"], "input": "$a.output"}`,
		`{"id": "empty", "tool": "notes"}`)
	h := &vmtest.Host{}
	inputs := map[string]string{}
	h.Auto = func(_ context.Context, c vm.Call) (string, error) {
		if c.Step.ID == "a" {
			return "line \"1\"\n<b>\x00", nil
		}
		if c.Input != nil {
			inputs[c.Step.ID] = string(c.Input)
			if !json.Valid(c.Input) {
				t.Errorf("%s: invalid JSON input %s", c.Step.ID, c.Input)
			}
		} else if c.Step.Kind.String() == "tool" {
			inputs[c.Step.ID] = "<nil>"
		}
		return "", nil
	}
	vmtest.Start(context.Background(), prog, h, vm.Options{}).Wait(t)
	diff(t, "inputs", map[string]string{
		"t":     `{"body":"line \"1\"\n<b>\u0000","$a.output":["success",null,{"n":1.50,"b":true}],"text":"see $a.output"}`,
		"s":     `"line \"1\"\n<b>\u0000"`,
		"empty": "<nil>",
	}, inputs)
}

// TestCapsuleObjective is S13: the objective is a string or
// {"objective": …}, either may be a reference; an output that is none
// reads as "" (V13).
func TestCapsuleObjective(t *testing.T) {
	prog := compile(t,
		`{"id": "a", "shell": "x"}`,
		`{"id": "none", "shell": "true"}`,
		`{"id": "w1", "capsule": "worker", "input": "plain"}`,
		`{"id": "w2", "capsule": "worker", "input": {"objective": "$a.output"}, "depends_on": ["a"]}`,
		`{"id": "w3", "capsule": "worker", "input": "$none.output", "depends_on": ["none"]}`)
	got := map[string]string{}
	h := &vmtest.Host{Auto: func(_ context.Context, c vm.Call) (string, error) {
		if c.Step.ID == "a" {
			return "fix the tests", nil
		}
		if c.Step.Kind.String() == "capsule" {
			got[c.Step.ID] = c.Objective
		}
		return "", nil
	}}
	vmtest.Start(context.Background(), prog, h, vm.Options{MaxParallel: 1}).Wait(t)
	diff(t, "objectives", map[string]string{"w1": "plain", "w2": "fix the tests", "w3": ""}, got)
}

// TestShellArgv is S14: the host gets the command line split into words;
// a shell step's input is ignored, references in it included (V14), so an
// unsettled reference there does not fail it.
func TestShellArgv(t *testing.T) {
	prog := compile(t,
		`{"id": "later", "tool": "t", "depends_on": ["s"]}`,
		`{"id": "s", "shell": "bash -c 'cargo test --quiet' \"a b\"", "input": {"x": "$later.output"}}`)
	var argv []string
	h := &vmtest.Host{Auto: func(_ context.Context, c vm.Call) (string, error) {
		if c.Step.ID == "s" {
			argv = c.Step.Argv
			if c.Input != nil {
				t.Errorf("shell step got input %s", c.Input)
			}
		}
		return "", nil
	}}
	rep := vmtest.Start(context.Background(), prog, h, vm.Options{}).Wait(t)
	diff(t, "argv", []string{"bash", "-c", "cargo test --quiet", "a b"}, argv)
	diff(t, "report", []row{{"s", "success", "", ""}, {"later", "success", "", ""}}, rows(rep))
}

// TestRefusal is docs/plans.md's "Step refusals": tool and shell steps
// are put to the host's refusal check once, before dispatch; a refused step
// settles failed with the refusal as its error, nothing is dispatched,
// retries do not apply, on_error does. Capsule steps are not put to it.
func TestRefusal(t *testing.T) {
	prog := compile(t,
		`{"id": "w", "tool": "write-file", "retries": 3, "on_error": "skip"}`,
		`{"id": "rm", "shell": "rm -rf src", "retries": 1, "on_error": "continue"}`,
		`{"id": "c", "capsule": "worker", "input": "x"}`,
		`{"id": "ok", "tool": "notes", "retries": 2, "depends_on": ["c"]}`,
		`{"id": "stop", "shell": "rm x", "depends_on": ["ok"]}`,
		`{"id": "never", "shell": "true", "depends_on": ["stop"]}`)
	h := &vmtest.Host{
		Refusals: map[string]error{
			"w":    errors.New(`"src/a.go" is under the read-only path "src"`),
			"rm":   errors.New("denied by hook 0 (on-shell)"),
			"stop": errors.New("denied by hook 0 (on-shell)"),
		},
		Auto: func(_ context.Context, c vm.Call) (string, error) {
			if c.Step.ID == "ok" && c.Attempt == 1 {
				return "", errors.New("flaky")
			}
			return "", nil
		},
	}
	rep := vmtest.Start(context.Background(), prog, h, vm.Options{}).Wait(t)
	diff(t, "report", []row{
		{"w", "skipped", "", `"src/a.go" is under the read-only path "src"`},
		{"rm", "failed", "", "denied by hook 0 (on-shell)"},
		{"c", "success", "", ""},
		{"ok", "success", "", ""},
		{"stop", "failed", "", "denied by hook 0 (on-shell)"},
	}, rows(rep))
	diff(t, "refusal checks", []string{"w", "rm", "ok", "stop"}, h.Refused())
	diff(t, "failed_step", "stop", *rep.FailedStep)
}

// TestHostPanics: a panic in any host method fails the step (or loses the
// event, for Trace), never the VM.
func TestHostPanics(t *testing.T) {
	prog := compile(t,
		`{"id": "r", "tool": "t", "on_error": "continue"}`,
		`{"id": "p", "shell": "x", "retries": 1}`)
	h := &panicky{Host: vmtest.Host{Auto: func(_ context.Context, c vm.Call) (string, error) {
		if c.Attempt == 1 {
			panic("host bug")
		}
		return "second", nil
	}}}
	rep, err := vm.Run(context.Background(), prog, h, vm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	diff(t, "report", []row{{"r", "failed", "", "host panic in the refusal check: refusal bug"}, {"p", "success", "second", ""}}, rows(rep))
	if !rep.Completed {
		t.Error(rep.Summary)
	}
}

// panicky panics in Refuse for tool steps and in every Trace.
type panicky struct{ vmtest.Host }

func (p *panicky) Refuse(ctx context.Context, c vm.Call) error {
	if c.Step.Kind.String() == "tool" {
		panic("refusal bug")
	}
	return nil
}

func (p *panicky) Trace(vm.Event) { panic("sink bug") }

// nilErr is an error type whose nil pointer panics in Error.
type nilErr struct{ msg string }

func (e *nilErr) Error() string { return e.msg }

// TestHostErrorPanics: a host error whose Error method panics fails the
// step, never the VM.
func TestHostErrorPanics(t *testing.T) {
	prog := compile(t, `{"id": "a", "tool": "t", "on_error": "continue"}`, `{"id": "b", "shell": "x", "on_error": "continue"}`)
	h := &vmtest.Host{
		Refusals: map[string]error{"b": (*nilErr)(nil)},
		Auto:     func(context.Context, vm.Call) (string, error) { return "", (*nilErr)(nil) },
	}
	rep := vmtest.Start(context.Background(), prog, h, vm.Options{}).Wait(t)
	for _, r := range rows(rep) {
		if r.Status != "failed" || !strings.HasPrefix(r.Error, "host panic") {
			t.Errorf("%+v", r)
		}
	}
}

// TestInputsKeptApart: tool inputs are carved from shared chunks, so a host
// that keeps every Input it was given (without copying it) still reads
// each as it was made, after many more were made after it: plain ones,
// ones whose escapes made them outgrow the room sized for them, and ones
// long enough to have a buffer of their own. Every tool step retries once,
// so its input is made twice.
func TestInputsKeptApart(t *testing.T) {
	outs := map[string]string{"plain": "plain", "escaped": strings.Repeat(`q"\`, 3), "long": strings.Repeat("x", 3000)}
	steps := []string{`{"id": "plain", "shell": "x"}`, `{"id": "escaped", "shell": "x"}`, `{"id": "long", "shell": "x"}`}
	want := map[string]string{}
	for i := range 400 {
		id, ref := fmt.Sprintf("t%d", i), [...]string{"plain", "escaped", "plain", "long"}[i%4]
		steps = append(steps, fmt.Sprintf(`{"id": %q, "tool": "notes", "depends_on": [%q], "retries": 1, "input": {"i": %d, "v": "$%s.output"}}`, id, ref, i, ref))
		v, _ := json.Marshal(outs[ref])
		want[id+"/1"] = fmt.Sprintf(`{"i":%d,"v":%s}`, i, v)
		want[id+"/2"] = want[id+"/1"]
	}
	prog := compile(t, steps...)
	var kept sync.Map // "id/attempt" → the Input itself
	h := &vmtest.Host{Auto: func(_ context.Context, c vm.Call) (string, error) {
		if out, ok := outs[c.Step.ID]; ok {
			return out, nil
		}
		kept.Store(fmt.Sprintf("%s/%d", c.Step.ID, c.Attempt), c.Input)
		if c.Attempt == 1 {
			return "", errors.New("once more")
		}
		return "", nil
	}}
	vmtest.Start(context.Background(), prog, h, vm.Options{}).Wait(t)
	got := map[string]string{}
	kept.Range(func(k, v any) bool {
		got[k.(string)] = string(v.(json.RawMessage))
		return true
	})
	diff(t, "kept inputs", want, got)
}
