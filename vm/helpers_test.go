package vm_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/check"
	"github.com/planc/planc/ir"
	"github.com/planc/planc/vm"
	"github.com/planc/planc/vm/vmtest"
)

// compile parses and lowers a plan with id "p" whose steps are the given
// JSON objects.
func compile(t testing.TB, steps ...string) *ir.Program {
	t.Helper()
	src := `{"id": "p", "steps": [` + strings.Join(steps, ",\n") + `]}`
	p, diags := check.Load([]byte(src), nil)
	if p == nil {
		t.Fatalf("refused: %v\n%s", diags, src)
	}
	prog, err := ir.Lower(p)
	if err != nil {
		t.Fatalf("lower: %v\n%s", err, src)
	}
	return prog
}

// row is a report entry in a compact form for comparisons: output and
// error "" stand for null.
type row struct {
	ID, Status, Output, Error string
}

func rows(rep vm.Report) []row {
	var out []row
	for _, s := range rep.Steps {
		r := row{ID: s.StepID, Status: s.Status.String()}
		if s.Output != nil {
			r.Output = *s.Output
		}
		if s.Error != nil {
			r.Error = *s.Error
		}
		out = append(out, r)
	}
	return out
}

// lines renders events as their JSON lines, durations dropped, for
// comparisons.
func lines(evs []vm.Event) []string {
	var out []string
	for _, e := range evs {
		e.Duration = 0
		b, _ := json.Marshal(e)
		out = append(out, string(b))
	}
	return out
}

// trace renders events as short words: "start a 1", "step a 1 failed",
// "plan_start", "end completed".
func trace(evs []vm.Event) []string {
	var out []string
	for _, e := range evs {
		switch e.Kind {
		case vm.PlanStart:
			out = append(out, "plan_start")
		case vm.PlanStepStart:
			out = append(out, "start "+e.StepID+" "+itoa(e.Attempt))
		case vm.PlanStep:
			out = append(out, "step "+e.StepID+" "+itoa(e.Attempt)+" "+e.Status.String())
		case vm.PlanEnd:
			out = append(out, "end "+e.Outcome.String())
		}
	}
	return out
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func diff(t testing.TB, what string, want, got any) {
	t.Helper()
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", what, d)
	}
}

var errExit1 = errors.New("exit status 1")

// start runs prog against a fresh fake host.
func start(t testing.TB, ctx context.Context, prog *ir.Program, opts vm.Options) (*vmtest.Host, *vmtest.Running) {
	h := &vmtest.Host{}
	return h, vmtest.Start(ctx, prog, h, opts)
}

func vmOpts() vm.Options { return vm.Options{PlanFile: "plans/plan-1.json"} }
