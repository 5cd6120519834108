package vm_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/planc/planc/ir"
	"github.com/planc/planc/vm"
	"github.com/planc/planc/vm/vmtest"
)

// TestPropertyRandomDAGs runs seeded random plans (random DAG, kinds,
// on_error, retries, conditions, references that may be unsettled, host
// refusals, outcomes, MaxParallel, and sometimes a cancel at a random event)
// against a host answering at once from real goroutines, and checks the
// invariants of S17–S22 on the report and the trace.
func TestPropertyRandomDAGs(t *testing.T) {
	runs := 400
	if testing.Short() {
		runs = 50
	}
	outcomes := map[vm.Outcome]int{}
	for seed := range uint64(runs) {
		rng := rand.New(rand.NewPCG(seed, 99))
		steps := randomSteps(rng)
		prog := compile(t, steps...)
		ctx, cancel := context.WithCancel(context.Background())
		cancelAt := -1
		if rng.IntN(3) == 0 {
			cancelAt = rng.IntN(2*len(steps) + 2)
		}
		failSalt := rng.Uint64()
		h := &vmtest.Host{Refusals: map[string]error{}}
		for _, s := range prog.Steps {
			if rng.IntN(10) == 0 {
				h.Refusals[s.ID] = errors.New("refused " + s.ID)
			}
		}
		seen := 0
		h.OnEvent = func(vm.Event) {
			if seen == cancelAt {
				cancel()
			}
			seen++
		}
		h.Auto = func(ctx context.Context, c vm.Call) (string, error) {
			if c.Step.Kind == ir.KindCapsule && cancelAt >= 0 && fails(failSalt+1, c.Index, c.Attempt) {
				// A long sub-capsule: the cancel lands while it runs.
				cancel()
				<-ctx.Done()
			}
			if fails(failSalt, c.Index, c.Attempt) {
				return "", fmt.Errorf("%s attempt %d failed", c.Step.ID, c.Attempt)
			}
			return c.Step.ID + " out", nil
		}
		opts := vm.Options{MaxParallel: rng.IntN(4)}
		rep, err := vm.Run(ctx, prog, h, opts)
		cancel()
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if msg := checkInvariants(prog, h, rep); msg != "" {
			t.Fatalf("seed %d: %s\nplan:\n%s\ntrace:\n%s", seed, msg, strings.Join(steps, "\n"), strings.Join(lines(h.Events()), "\n"))
		}
		outcomes[rep.Outcome]++
	}
	t.Logf("outcomes: %v", outcomes)
	for _, o := range []vm.Outcome{vm.Completed, vm.Failed, vm.Canceled} {
		if outcomes[o] == 0 {
			t.Errorf("no random plan ended %v: the generator lost its reach", o)
		}
	}
}

func fails(salt uint64, step, attempt int) bool {
	r := rand.New(rand.NewPCG(salt, uint64(step)<<8|uint64(attempt)))
	return r.IntN(3) == 0
}

func randomSteps(rng *rand.Rand) []string {
	n := rng.IntN(30)
	steps := make([]string, n)
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, `{"id": "s%d"`, i)
		switch rng.IntN(3) {
		case 0:
			b.WriteString(`, "tool": "t"`)
		case 1:
			b.WriteString(`, "shell": "run it"`)
		default:
			b.WriteString(`, "capsule": "worker", "input": "task"`)
		}
		var deps []int
		for range rng.IntN(3) {
			if i > 0 {
				deps = append(deps, rng.IntN(i))
			}
		}
		if len(deps) > 0 {
			fmt.Fprintf(&b, `, "depends_on": ["s%d"`, deps[0])
			for _, d := range deps[1:] {
				fmt.Fprintf(&b, `, "s%d"`, d)
			}
			b.WriteString("]")
		}
		if i > 0 && rng.IntN(3) == 0 {
			// Mostly a dependency, sometimes any earlier step (S9).
			ref := rng.IntN(i)
			if len(deps) > 0 && rng.IntN(4) > 0 {
				ref = deps[0]
			}
			lit := []string{"success", "failed", "skipped"}[rng.IntN(3)]
			op := []string{"==", "!="}[rng.IntN(2)]
			fmt.Fprintf(&b, `, "if": "$s%d.status %s '%s' || $s%d.output == 'x'"`, ref, op, lit, ref)
		}
		fmt.Fprintf(&b, `, "on_error": %q, "retries": %d}`, []string{"fail", "skip", "continue"}[rng.IntN(3)], rng.IntN(3))
		steps[i] = b.String()
	}
	return steps
}

// checkInvariants returns what is wrong with a first run, or "".
func checkInvariants(prog *ir.Program, h *vmtest.Host, rep vm.Report) string {
	return checkRun(prog, h, rep, nil)
}

// checkRun returns what is wrong with a run, or "": a first run when prior
// is nil, else a redrive from prior (S26, S28).
func checkRun(prog *ir.Program, h *vmtest.Host, rep vm.Report, prior []vm.Prior) string {
	evs := h.Events()
	if prior == nil {
		prior = make([]vm.Prior, len(prog.Steps))
	}
	reused := 0
	for _, p := range prior {
		if p.Reused() {
			reused++
		}
	}
	n := len(prog.Steps)
	index := map[string]int{}
	for i, s := range prog.Steps {
		index[s.ID] = i
	}
	if h.Active() != 0 {
		return "dispatches still in the host after Run returned"
	}
	if h.MaxTools() > 1 {
		return fmt.Sprintf("%d tool steps in flight at once", h.MaxTools())
	}
	if len(evs) < 2 || evs[0].Kind != vm.PlanStart || evs[len(evs)-1].Kind != vm.PlanEnd {
		return "the trace does not open with plan_start and close with plan_end"
	}
	// Each step's last plan_step settles it.
	last := make([]int, n)
	for i := range last {
		last[i] = -1
	}
	for k, e := range evs {
		if e.Kind == vm.PlanStep {
			last[index[e.StepID]] = k
		}
	}
	var order []string
	lastReused := -1
	inFlight := map[int]int{} // step → attempt
	toolsInFlight := 0
	for k, e := range evs[1 : len(evs)-1] {
		k++
		i := index[e.StepID]
		s := &prog.Steps[i]
		switch e.Kind {
		case vm.PlanStepStart:
			for _, d := range s.Deps {
				if last[d] < 0 || last[d] > k {
					return fmt.Sprintf("%s started before its dependency %s settled (S17)", s.ID, prog.Steps[d].ID)
				}
			}
			if _, ok := inFlight[i]; ok {
				return fmt.Sprintf("%s dispatched twice at once", s.ID)
			}
			if base := prior[i].Attempt; e.Attempt < base+1 || e.Attempt > base+s.Retries+1 {
				return fmt.Sprintf("%s attempt %d with retries %d after attempt %d (S19, S26)", s.ID, e.Attempt, s.Retries, base)
			}
			if prior[i].Reused() {
				return fmt.Sprintf("%s dispatched though a redrive reuses it (S26)", s.ID)
			}
			inFlight[i] = e.Attempt
			if s.Kind == ir.KindTool {
				if toolsInFlight++; toolsInFlight > 1 {
					return fmt.Sprintf("tool step %s started while another ran (S17)", s.ID)
				}
			}
		case vm.PlanStep:
			if a, ok := inFlight[i]; ok {
				if a != e.Attempt {
					return fmt.Sprintf("%s: plan_step attempt %d for dispatch %d", s.ID, e.Attempt, a)
				}
				delete(inFlight, i)
				if s.Kind == ir.KindTool {
					toolsInFlight--
				}
			} else if e.Reused {
				if !prior[i].Reused() || e.Attempt != prior[i].Attempt || e.Status != vm.StatusSuccess || e.OutputBytes != len(prior[i].Output) {
					return fmt.Sprintf("%s: reused line %+v for prior %+v (S28)", s.ID, e, prior[i])
				}
				if k > reused || i < lastReused {
					return fmt.Sprintf("%s: reused after other steps' lines, or out of plan order (S26)", s.ID)
				}
				lastReused = i
			} else if e.Attempt != 0 {
				return fmt.Sprintf("%s: plan_step attempt %d without a dispatch", s.ID, e.Attempt)
			}
			if e.Reused != prior[i].Reused() {
				return fmt.Sprintf("%s: plan_step reused %v for prior %+v (S26)", s.ID, e.Reused, prior[i])
			}
			if k == last[i] {
				order = append(order, s.ID)
			} else if e.Status != vm.StatusFailed {
				return fmt.Sprintf("%s: a retried attempt has status %v", s.ID, e.Status)
			}
		default:
			return fmt.Sprintf("event %v inside the run", e.Kind)
		}
	}
	if len(inFlight) != 0 {
		return "steps still in flight at plan_end"
	}
	var got []string
	counts := map[vm.Status]int{}
	for _, sr := range rep.Steps {
		got = append(got, sr.StepID)
		counts[sr.Status]++
		e := evs[last[index[sr.StepID]]]
		if e.Status != sr.Status || (sr.Error == nil) != (e.Error == "") {
			return fmt.Sprintf("%s: report %v, last plan_step %v %q", sr.StepID, sr.Status, e.Status, e.Error)
		}
	}
	if strings.Join(got, " ") != strings.Join(order, " ") {
		return fmt.Sprintf("report order %v, settle order %v", got, order)
	}
	if len(got) > n {
		return "more report entries than steps"
	}
	if rep.Completed && len(got) != n {
		return fmt.Sprintf("completed with %d of %d steps settled", len(got), n)
	}
	if rep.Completed == (rep.Canceled || rep.FailedStep != nil) || rep.Failed == rep.Completed {
		return fmt.Sprintf("completed %v canceled %v failed_step %v", rep.Completed, rep.Canceled, rep.FailedStep)
	}
	if rep.Canceled && len(got) != n {
		return "a cancelled plan left steps unsettled"
	}
	if rep.FailedStep != nil {
		s := &prog.Steps[index[*rep.FailedStep]]
		if s.OnError != ir.OnErrorFail || counts[vm.StatusFailed] == 0 {
			return fmt.Sprintf("failed_step %s has on_error %v", s.ID, s.OnError)
		}
	}
	end := evs[len(evs)-1]
	if counts[vm.StatusSuccess] != rep.Succeeded || counts[vm.StatusFailed] != rep.FailedSteps || counts[vm.StatusSkipped] != rep.Skipped ||
		end.Succeeded != rep.Succeeded || end.Failed != rep.FailedSteps || end.Skipped != rep.Skipped || end.Outcome != rep.Outcome {
		return fmt.Sprintf("counts %v, report %d/%d/%d, plan_end %+v", counts, rep.Succeeded, rep.FailedSteps, rep.Skipped, end)
	}
	wantSummary := fmt.Sprintf(": %d steps, %d succeeded, %d failed, %d skipped", n, rep.Succeeded, rep.FailedSteps, rep.Skipped)
	if !strings.HasSuffix(rep.Summary, wantSummary) {
		return fmt.Sprintf("summary %q (S21)", rep.Summary)
	}
	return ""
}
