package golden

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/check"
	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/ir"
	"github.com/planc/planc/vm"
	"github.com/planc/planc/vm/vmtest"
)

// script is a run scenario's host.json: what the scripted host answers and
// when the task is cancelled.
type script struct {
	// Results lists, per step id, each attempt's result in order; an
	// attempt with no entry succeeds with no output.
	Results map[string][]result `json:"results"`
	// Refuse maps a step id to the refusal the host's check returns.
	Refuse map[string]string `json:"refuse"`
	// Release names, in order, the steps whose dispatch in flight ends
	// next; once it is used up, dispatches end in the order they started.
	Release []string `json:"release"`
	// Cancel, when set, cancels the task as the VM writes that event.
	Cancel *cancelAt `json:"cancel"`
	// MaxParallel is vm.Options.MaxParallel.
	MaxParallel int `json:"max_parallel"`
}

type result struct {
	Output string `json:"output"`
	Error  string `json:"error"`
	Panic  string `json:"panic"`
}

// cancelAt names an event: "before_run", or a plan_step_start / plan_step
// of a step and attempt.
type cancelAt struct {
	Event   string `json:"event"`
	Step    string `json:"step"`
	Attempt int    `json:"attempt"`
}

// TestRunGolden runs every scenario under testdata/run: plan.json checked
// (no errors), lowered and run against the scripted host of host.json; the
// report, its summary, the trace events and the host calls must equal
// want.txt (go test ./golden -update rewrites it).
func TestRunGolden(t *testing.T) {
	dirs, _ := filepath.Glob("testdata/run/*")
	if len(dirs) == 0 {
		t.Fatal("no run scenarios")
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			got := runScenario(t, dir)
			path := filepath.Join(dir, "want.txt")
			testkit.GoldenFile(t, path, got, "run")
		})
	}
}

func runScenario(t *testing.T, dir string) string {
	src, err := os.ReadFile(filepath.Join(dir, "plan.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sc script
	if b, err := os.ReadFile(filepath.Join(dir, "host.json")); err == nil {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&sc); err != nil {
			t.Fatalf("host.json: %v", err)
		}
	}
	plan, diags := check.Load(src, nil)
	var warnings []string
	for _, d := range diags {
		if d.Severity == ast.Error {
			t.Fatalf("plan.json is refused: %s", d.OneLine("plan.json"))
		}
		warnings = append(warnings, d.OneLine("plan.json"))
	}
	prog, err := ir.Lower(plan)
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h := &vmtest.Host{Refusals: map[string]error{}}
	for id, msg := range sc.Refuse {
		h.Refusals[id] = errors.New(msg)
	}
	if c := sc.Cancel; c != nil {
		if c.Event == "before_run" {
			cancel()
		}
		h.OnEvent = func(e vm.Event) {
			if e.Kind.String() == c.Event && e.StepID == c.Step && e.Attempt == c.Attempt {
				cancel()
			}
		}
	}
	epoch := time.Unix(0, 0)
	run := vmtest.Start(ctx, prog, h, vm.Options{MaxParallel: sc.MaxParallel, PlanFile: "plans/plan-1.json", Now: func() time.Time { return epoch }})
	calls := drive(t, h, &sc)
	rep := run.Wait(t)

	var b strings.Builder
	b.WriteString("-- report.json --\n")
	js, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	b.Write(js)
	fmt.Fprintf(&b, "\n-- result --\nfailed: %v\nsummary: %s\n-- trace.jsonl --\n", rep.Failed, rep.Summary)
	for _, e := range h.Events() {
		line, _ := e.MarshalJSON()
		b.Write(line)
		b.WriteByte('\n')
	}
	b.WriteString("-- host --\n")
	for _, id := range h.Refused() {
		fmt.Fprintf(&b, "refusal check %s\n", id)
	}
	for _, c := range calls {
		b.WriteString(c + "\n")
	}
	if len(warnings) > 0 {
		b.WriteString("-- check warnings --\n" + strings.Join(warnings, "\n") + "\n")
	}
	return b.String()
}

// drive ends the run's dispatches one at a time, each only once the VM has
// written the previous one's plan_step line, so the run is deterministic:
// first in the order of sc.Release, then in the order they started. It
// returns the dispatches as text lines, in the order they ended.
func drive(t *testing.T, h *vmtest.Host, sc *script) []string {
	var calls []string
	ended := map[string]bool{} // "id/attempt"
	for {
		var id string
		if len(sc.Release) > 0 {
			id, sc.Release = sc.Release[0], sc.Release[1:]
		} else {
			// The earliest dispatch not yet ended, or the end of the run.
			done := false
			h.Wait(t, "a dispatch or plan_end", func() bool {
				id = ""
				for _, e := range h.EventsLocked() {
					switch {
					case e.Kind == vm.PlanEnd:
						done = true
						return true
					case e.Kind == vm.PlanStepStart && !ended[key(e.StepID, e.Attempt)]:
						id = e.StepID
						return true
					}
				}
				return false
			})
			if done {
				return calls
			}
		}
		d := h.Take(t, id)
		c := d.Call
		ended[key(id, c.Attempt)] = true
		calls = append(calls, formatCall(c))
		res := result{}
		if rs := sc.Results[id]; c.Attempt <= len(rs) {
			res = rs[c.Attempt-1]
		}
		switch {
		case res.Panic != "":
			d.Panic(res.Panic)
		case res.Error != "":
			d.Reply(res.Output, errors.New(res.Error))
		default:
			d.Reply(res.Output, nil)
		}
		h.WaitSettled(t, id, c.Attempt)
	}
}

func key(id string, attempt int) string { return id + "/" + strconv.Itoa(attempt) }

func formatCall(c vm.Call) string {
	s := fmt.Sprintf("%s %s attempt %d: ", c.Step.Kind, c.Step.ID, c.Attempt)
	switch c.Step.Kind {
	case ir.KindTool:
		in := "none"
		if c.Input != nil {
			in = string(c.Input)
		}
		return s + fmt.Sprintf("tool %q input %s", c.Step.Target, in)
	case ir.KindShell:
		return s + fmt.Sprintf("argv %q", c.Step.Argv)
	default:
		return s + fmt.Sprintf("capsule %q objective %q", c.Step.Target, c.Objective)
	}
}
