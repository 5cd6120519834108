package vm_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/planc/planc/ir"
	"github.com/planc/planc/vm"
	"github.com/planc/planc/vm/vmtest"
)

// priorsOf is what a host reads back from a finished run for its redrive:
// per step, the status of its last plan_step line, its highest attempt, and
// the output and error of its report entry (tracefile does the same from
// trace.jsonl and outputs/).
func priorsOf(prog *ir.Program, evs []vm.Event, rep vm.Report) []vm.Prior {
	index := map[string]int{}
	for i, s := range prog.Steps {
		index[s.ID] = i
	}
	prior := make([]vm.Prior, len(prog.Steps))
	for _, e := range evs {
		if e.Kind != vm.PlanStep && e.Kind != vm.PlanStepStart {
			continue
		}
		p := &prior[index[e.StepID]]
		p.Attempt = max(p.Attempt, e.Attempt)
		if e.Kind == vm.PlanStep {
			p.Status = e.Status
		}
	}
	for _, sr := range rep.Steps {
		p := &prior[index[sr.StepID]]
		if sr.Output != nil {
			p.Output = *sr.Output
		}
		if sr.Error != nil {
			p.Error = *sr.Error
		}
	}
	return prior
}

// autoHost answers every dispatch at once: out[id] (default "ID out"), and
// the error fail[id] when set; it records every call.
type autoHost struct {
	vmtest.Host
	mu    sync.Mutex
	calls []vm.Call
}

func newAutoHost(out map[string]string, fail map[string]error) *autoHost {
	h := &autoHost{}
	h.Auto = func(_ context.Context, c vm.Call) (string, error) {
		h.mu.Lock()
		h.calls = append(h.calls, c)
		h.mu.Unlock()
		o, ok := out[c.Step.ID]
		if !ok {
			o = c.Step.ID + " out"
		}
		return o, fail[c.Step.ID]
	}
	return h
}

// dispatched returns "id attempt" for every dispatch, in order.
func (h *autoHost) dispatched() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, c := range h.calls {
		out = append(out, fmt.Sprintf("%s %d", c.Step.ID, c.Attempt))
	}
	return out
}

// TestRedriveReuseTable is S26 over every recorded status of a step, with
// and without a condition (true or false now), under each on_error: only a
// recorded success is reused (one plan_step line, reused, with its
// recorded attempt and output, no dispatch, nothing re-evaluated); every
// other step runs again as if fresh, its condition evaluated again and its
// attempts going on from the highest recorded.
func TestRedriveReuseTable(t *testing.T) {
	priors := map[string]vm.Prior{
		"success":          {Status: vm.StatusSuccess, Output: "x before", Attempt: 2},
		"success-no-out":   {Status: vm.StatusSuccess, Attempt: 1},
		"failed":           {Status: vm.StatusFailed, Output: "half", Error: "exit status 1", Attempt: 3},
		"skipped-by-error": {Status: vm.StatusSkipped, Error: "exit status 1", Attempt: 1},
		"skipped-by-if":    {Status: vm.StatusSkipped},
		"canceled":         {Status: vm.StatusSkipped, Error: vm.CanceledBeforeRun},
		"never-dispatched": {},
		"unsettled":        {Attempt: 2}, // dispatched, then the runtime died
	}
	conds := map[string]string{"none": "", "true": `, "if": "$up.status == 'success'"`, "false": `, "if": "$up.output != 'up before'"`}
	for name, p := range priors {
		for _, onError := range []string{"fail", "skip", "continue"} {
			for cname, cond := range conds {
				t.Run(fmt.Sprintf("%s/%s/if-%s", name, onError, cname), func(t *testing.T) {
					prog := compile(t, `{"id": "up", "shell": "u"}`,
						`{"id": "x", "shell": "x", "depends_on": ["up"], "on_error": "`+onError+`"`+cond+`}`)
					h := newAutoHost(nil, nil)
					prior := []vm.Prior{{Status: vm.StatusSuccess, Output: "up before", Attempt: 1}, p}
					rep := vmtest.Start(context.Background(), prog, h, vm.Options{Redrive: 1, Prior: prior}).Wait(t)
					want := []string{"plan_start", "step up 1 success"}
					wantRows := []row{{"up", "success", "up before", ""}}
					var wantCalls []string
					switch {
					case p.Status == vm.StatusSuccess:
						want = append(want, fmt.Sprintf("step x %d success", p.Attempt))
						wantRows = append(wantRows, row{"x", "success", p.Output, ""})
					case cname == "false":
						want = append(want, "step x 0 skipped")
						wantRows = append(wantRows, row{"x", "skipped", "", ""})
					default:
						a := p.Attempt + 1
						want = append(want, fmt.Sprintf("start x %d", a), fmt.Sprintf("step x %d success", a))
						wantRows = append(wantRows, row{"x", "success", "x out", ""})
						wantCalls = []string{fmt.Sprintf("x %d", a)}
					}
					diff(t, "trace", append(want, "end completed"), trace(h.Events()))
					diff(t, "report", wantRows, rows(rep))
					diff(t, "dispatches", wantCalls, h.dispatched())
					for _, e := range h.Events() {
						reused := e.StepID == "up" || (e.StepID == "x" && p.Status == vm.StatusSuccess)
						if e.Kind == vm.PlanStep && e.Reused != reused {
							t.Errorf("%s: reused %v, want %v", e.StepID, e.Reused, reused)
						}
					}
				})
			}
		}
	}
}

// TestRedriveTrace is S28 on the trace lines and the report: plan_start
// and plan_end carry the redrive number, each reused step writes one
// plan_step line with reused, its recorded status, attempt and output
// length, in plan order before anything is dispatched; the report holds the
// reused steps first, in plan order, then the others as they settle.
func TestRedriveTrace(t *testing.T) {
	prog := compile(t,
		`{"id": "a", "tool": "t"}`,
		`{"id": "b", "shell": "x", "depends_on": ["a"], "retries": 1}`,
		`{"id": "c", "tool": "t", "input": {"n": "$a.output"}}`,
		`{"id": "d", "shell": "y", "depends_on": ["b", "c"]}`)
	h := newAutoHost(map[string]string{"b": "", "d": "dd"}, nil)
	prior := []vm.Prior{
		{Status: vm.StatusSuccess, Output: "héllo", Attempt: 1},
		{Status: vm.StatusFailed, Error: "exit status 1", Attempt: 2},
		{Status: vm.StatusSuccess, Output: "", Attempt: 4},
		{Status: vm.StatusSkipped, Error: vm.CanceledBeforeRun},
	}
	opts := vm.Options{PlanFile: "plans/plan-3.json", PlanSHA256: strings.Repeat("ab", 32), Redrive: 2, Prior: prior}
	rep := vmtest.Start(context.Background(), prog, h, opts).Wait(t)
	sha := strings.Repeat("ab", 32)
	diff(t, "lines", []string{
		`{"event":"plan_start","plan_id":"p","plan_file":"plans/plan-3.json","steps":4,"sha256":"` + sha + `","redrive":2}`,
		`{"event":"plan_step","plan_id":"p","step_id":"a","status":"success","attempt":1,"duration_ms":0,"error":null,"reused":true,"output_bytes":6}`,
		`{"event":"plan_step","plan_id":"p","step_id":"c","status":"success","attempt":4,"duration_ms":0,"error":null,"reused":true,"output_bytes":0}`,
		`{"event":"plan_step_start","plan_id":"p","step_id":"b","kind":"shell","attempt":3}`,
		`{"event":"plan_step","plan_id":"p","step_id":"b","status":"success","attempt":3,"duration_ms":0,"error":null}`,
		`{"event":"plan_step_start","plan_id":"p","step_id":"d","kind":"shell","attempt":1}`,
		`{"event":"plan_step","plan_id":"p","step_id":"d","status":"success","attempt":1,"duration_ms":0,"error":null}`,
		`{"event":"plan_end","plan_id":"p","outcome":"completed","failed_step":null,"succeeded":4,"failed":0,"skipped":0,"redrive":2}`,
	}, lines(h.Events()))
	diff(t, "report", []row{{"a", "success", "héllo", ""}, {"c", "success", "", ""}, {"b", "success", "", ""}, {"d", "success", "dd", ""}}, rows(rep))
	diff(t, "summary", "Plan 'p': 4 steps, 4 succeeded, 0 failed, 0 skipped", rep.Summary)
}

// TestRedriveAttempts: attempt numbers go on from the highest recorded
// attempt and the retries budget is whole again (S26): a step that used up
// attempts 1–3 with retries 2 gets attempts 4, 5 and 6; the failure of the
// last stops the plan under on_error fail.
func TestRedriveAttempts(t *testing.T) {
	prog := compile(t,
		`{"id": "flaky", "shell": "x", "retries": 2}`,
		`{"id": "cap", "capsule": "worker", "input": "go", "retries": 1, "on_error": "continue"}`)
	h := newAutoHost(nil, map[string]error{"flaky": errExit1, "cap": errors.New("no answer")})
	prior := []vm.Prior{{Status: vm.StatusFailed, Error: "exit status 1", Attempt: 3}, {Attempt: 7}}
	rep := vmtest.Start(context.Background(), prog, h, vm.Options{Redrive: 1, Prior: prior}).Wait(t)
	got := h.dispatched()
	var flaky, capsule []string
	for _, d := range got {
		if strings.HasPrefix(d, "flaky") {
			flaky = append(flaky, d)
		} else {
			capsule = append(capsule, d)
		}
	}
	diff(t, "flaky's attempts", []string{"flaky 4", "flaky 5", "flaky 6"}, flaky)
	// cap's first attempt fails after flaky's stop or before it: it is
	// never retried after the stop (V8), so it has 8, and 9 only if its
	// first failure came first.
	if len(capsule) == 0 || capsule[0] != "cap 8" || len(capsule) > 2 || (len(capsule) == 2 && capsule[1] != "cap 9") {
		t.Errorf("cap's attempts %v, want cap 8 (and cap 9)", capsule)
	}
	if rep.FailedStep == nil || *rep.FailedStep != "flaky" {
		t.Errorf("failed_step %v, want flaky", rep.FailedStep)
	}
}

// TestRedriveRetryOnce: with retries 1 a redriven step is dispatched at
// most twice in the redrive, whatever it used before.
func TestRedriveRetryOnce(t *testing.T) {
	prog := compile(t, `{"id": "s", "shell": "x", "retries": 1, "on_error": "continue"}`)
	h := newAutoHost(nil, map[string]error{"s": errExit1})
	rep := vmtest.Start(context.Background(), prog, h, vm.Options{Prior: []vm.Prior{{Status: vm.StatusFailed, Attempt: 9}}}).Wait(t)
	diff(t, "attempts", []string{"s 10", "s 11"}, h.dispatched())
	diff(t, "report", []row{{"s", "failed", "s out", "exit status 1"}}, rows(rep))
}

// TestRedriveOutputSeenAsBefore: a reused step's output reaches a
// dependent's input, objective and condition exactly as in the first run,
// a cut output (S20) with its mark included, and an empty one as none
// (V1).
func TestRedriveOutputSeenAsBefore(t *testing.T) {
	cut := strings.Repeat("é", 32767) + "a\n[cut: 70000 bytes in all; whole text at .planc/sessions/s/outputs/plan-1/big.1.txt]"
	prog := compile(t,
		`{"id": "big", "shell": "cat big"}`,
		`{"id": "none", "shell": "true"}`,
		`{"id": "flaky", "shell": "x"}`,
		`{"id": "t", "tool": "notes", "depends_on": ["big", "none", "flaky"], "input": {"body": "$big.output", "none": "$none.output"}}`,
		`{"id": "w", "capsule": "worker", "depends_on": ["big", "flaky"], "input": {"objective": "$big.output"}}`,
		`{"id": "if-cut", "shell": "y", "depends_on": ["big", "none", "flaky"], "if": "$big.output > 'é' && $none.output == ''"}`,
		`{"id": "if-not", "shell": "y", "depends_on": ["big", "flaky"], "if": "$big.output < 'é'"}`)
	seen := func(h *autoHost) map[string]string {
		got := map[string]string{}
		for _, c := range h.calls {
			switch c.Step.ID {
			case "t":
				got["t"] = string(c.Input)
			case "w":
				got["w"] = c.Objective
			case "if-cut", "if-not":
				got[c.Step.ID] = "ran"
			}
		}
		return got
	}
	first := newAutoHost(map[string]string{"big": cut, "none": ""}, map[string]error{"flaky": errExit1})
	rep1 := vmtest.Start(context.Background(), prog, first, vm.Options{}).Wait(t)
	if rep1.FailedStep == nil || *rep1.FailedStep != "flaky" {
		t.Fatalf("first run: failed_step %v", rep1.FailedStep)
	}
	// The first run stopped at flaky: run the dependents once with a host
	// that lets flaky through, to have what they saw with these outputs.
	ok := newAutoHost(map[string]string{"big": cut, "none": ""}, nil)
	vmtest.Start(context.Background(), prog, ok, vm.Options{}).Wait(t)
	want := seen(ok)
	if want["t"] == "" || want["w"] != cut || want["if-cut"] != "ran" || want["if-not"] != "" {
		t.Fatalf("the fresh run saw %v", want)
	}

	redrive := newAutoHost(map[string]string{"big": "CHANGED", "none": "CHANGED"}, nil)
	prior := priorsOf(prog, first.Events(), rep1)
	rep2 := vmtest.Start(context.Background(), prog, redrive, vm.Options{Redrive: 1, Prior: prior}).Wait(t)
	diff(t, "what the dependents saw", want, seen(redrive))
	for _, d := range redrive.dispatched() {
		if strings.HasPrefix(d, "big ") || strings.HasPrefix(d, "none ") {
			t.Errorf("reused step dispatched: %s", d)
		}
	}
	if !rep2.Completed || *rep2.Steps[0].Output != cut || rep2.Steps[1].Output != nil {
		t.Errorf("redrive report %v", rows(rep2))
	}
}

// TestRedriveReusedAfterRerunDependency: a reused step whose dependency
// runs again (it succeeded under on_error continue after its dependency
// failed) is not dispatched when that dependency settles.
func TestRedriveReusedAfterRerunDependency(t *testing.T) {
	prog := compile(t,
		`{"id": "a", "shell": "x", "on_error": "continue"}`,
		`{"id": "b", "shell": "y", "depends_on": ["a"]}`,
		`{"id": "c", "shell": "z", "depends_on": ["b"]}`)
	h := newAutoHost(nil, nil)
	prior := []vm.Prior{{Status: vm.StatusFailed, Error: "exit status 1", Attempt: 1}, {Status: vm.StatusSuccess, Output: "b", Attempt: 1}, {}}
	rep := vmtest.Start(context.Background(), prog, h, vm.Options{Prior: prior}).Wait(t)
	got := h.dispatched()
	slices.Sort(got)
	diff(t, "dispatches", []string{"a 2", "c 1"}, got)
	diff(t, "first in the report", row{"b", "success", "b", ""}, rows(rep)[0])
	if len(rep.Steps) != 3 || !rep.Completed {
		t.Errorf("report %v", rows(rep))
	}
}

// TestRedriveCanceled: a redrive whose task is cancelled before it starts
// still settles the reused steps first; every other step is skipped as
// not dispatched.
func TestRedriveCanceled(t *testing.T) {
	prog := compile(t, `{"id": "a", "tool": "t"}`, `{"id": "b", "shell": "x", "depends_on": ["a"]}`)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	h := newAutoHost(nil, nil)
	prior := []vm.Prior{{Status: vm.StatusSuccess, Output: "a", Attempt: 1}, {Status: vm.StatusFailed, Attempt: 1}}
	rep := vmtest.Start(ctx, prog, h, vm.Options{Redrive: 1, Prior: prior}).Wait(t)
	diff(t, "trace", []string{"plan_start", "step a 1 success", "step b 0 skipped", "end canceled"}, trace(h.Events()))
	diff(t, "report", []row{{"a", "success", "a", ""}, {"b", "skipped", "", vm.CanceledBeforeRun}}, rows(rep))
	if !rep.Canceled || len(h.dispatched()) != 0 {
		t.Errorf("canceled %v, dispatches %v", rep.Canceled, h.dispatched())
	}
}

// TestRedriveAllReused: a redrive of a plan whose every step succeeded
// dispatches nothing and completes (the host refuses such a redrive, S27;
// the VM still answers sensibly).
func TestRedriveAllReused(t *testing.T) {
	prog := compile(t, `{"id": "a", "tool": "t"}`, `{"id": "b", "shell": "x", "depends_on": ["a"]}`)
	h := newAutoHost(nil, nil)
	prior := []vm.Prior{{Status: vm.StatusSuccess, Attempt: 1}, {Status: vm.StatusSuccess, Output: "b", Attempt: 2}}
	rep := vmtest.Start(context.Background(), prog, h, vm.Options{Redrive: 1, Prior: prior}).Wait(t)
	if !rep.Completed || len(h.dispatched()) != 0 || len(h.Refused()) != 0 {
		t.Errorf("completed %v, dispatches %v, refusal checks %v", rep.Completed, h.dispatched(), h.Refused())
	}
}

// TestRedriveOptionErrors: a Prior that does not fit the program, an
// invalid status, a negative attempt or redrive refuse to start.
func TestRedriveOptionErrors(t *testing.T) {
	prog := compile(t, `{"id": "a", "tool": "t"}`)
	h := &vmtest.Host{}
	for name, opts := range map[string]vm.Options{
		"too few":          {Prior: []vm.Prior{}},
		"too many":         {Prior: make([]vm.Prior, 2)},
		"invalid status":   {Prior: []vm.Prior{{Status: 9}}},
		"negative attempt": {Prior: []vm.Prior{{Attempt: -1}}},
		"negative redrive": {Redrive: -1},
	} {
		if _, err := vm.Run(context.Background(), prog, h, opts); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if len(h.Events()) != 0 {
		t.Errorf("events from runs that did not start: %v", h.Events())
	}
}
