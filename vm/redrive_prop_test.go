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

// priorsCut is what a redrive reads back from the first cut events of a
// run whose runtime died there (all of them when it did not): per step
// the status of its last plan_step line, none when its last line is a
// dispatch that never settled, its highest attempt, and for a success the
// output the fake host gave ("ID out").
func priorsCut(prog *ir.Program, evs []vm.Event) []vm.Prior {
	index := map[string]int{}
	for i, s := range prog.Steps {
		index[s.ID] = i
	}
	prior := make([]vm.Prior, len(prog.Steps))
	for _, e := range evs {
		i, ok := index[e.StepID]
		if !ok || (e.Kind != vm.PlanStep && e.Kind != vm.PlanStepStart) {
			continue
		}
		p := &prior[i]
		switch e.Kind {
		case vm.PlanStepStart:
			p.Status, p.Error, p.Attempt = 0, "", max(p.Attempt, e.Attempt)
		case vm.PlanStep:
			p.Status, p.Error, p.Attempt = e.Status, e.Error, max(p.Attempt, e.Attempt)
			p.Output = ""
			if e.Status == vm.StatusSuccess {
				p.Output = e.StepID + " out"
			}
		}
	}
	return prior
}

// TestPropertyRedrive runs seeded random plans once (failing, refusing and
// cancelling at random, and sometimes dying: the trace cut at a random
// line), reads back the priors, and redrives twice; every redrive must keep
// S17–S22 and S26–S28: the recorded successes, and only they, are reused
// first in plan order and never dispatched, every other step's attempts go
// on from its highest recorded one with its retries whole.
func TestPropertyRedrive(t *testing.T) {
	runs := 300
	if testing.Short() {
		runs = 40
	}
	reused, rerun := 0, 0
	for seed := range uint64(runs) {
		rng := rand.New(rand.NewPCG(seed, 7))
		steps := randomSteps(rng)
		prog := compile(t, steps...)
		var evs []vm.Event
		for k := range 3 {
			salt := rng.Uint64()
			h := &vmtest.Host{Refusals: map[string]error{}}
			for _, s := range prog.Steps {
				if rng.IntN(12) == 0 {
					h.Refusals[s.ID] = errors.New("refused " + s.ID)
				}
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancelAt, seen := -1, 0
			if rng.IntN(4) == 0 {
				cancelAt = rng.IntN(2*len(steps) + 2)
			}
			h.OnEvent = func(vm.Event) {
				if seen == cancelAt {
					cancel()
				}
				seen++
			}
			h.Auto = func(ctx context.Context, c vm.Call) (string, error) {
				if fails(salt, c.Index, c.Attempt) {
					return "", fmt.Errorf("%s attempt %d failed", c.Step.ID, c.Attempt)
				}
				return c.Step.ID + " out", nil
			}
			var prior []vm.Prior
			if k > 0 {
				prior = priorsCut(prog, evs)
			}
			rep, err := vm.Run(ctx, prog, h, vm.Options{MaxParallel: rng.IntN(3), Redrive: k, Prior: prior})
			cancel()
			if err != nil {
				t.Fatalf("seed %d run %d: %v", seed, k, err)
			}
			if msg := checkRun(prog, h, rep, prior); msg != "" {
				t.Fatalf("seed %d run %d: %s\nplan:\n%s\nprior: %+v\ntrace:\n%s", seed, k, msg, strings.Join(steps, "\n"), prior, strings.Join(lines(h.Events()), "\n"))
			}
			for _, p := range prior {
				if p.Reused() {
					reused++
				} else {
					rerun++
				}
			}
			// The next run reads this one's lines after the earlier ones';
			// sometimes the runtime died part way.
			run := h.Events()
			if rng.IntN(3) == 0 {
				run = run[:rng.IntN(len(run)+1)]
			}
			evs = append(evs, run...)
		}
	}
	t.Logf("steps reused %d, run again %d", reused, rerun)
	if reused == 0 || rerun == 0 {
		t.Errorf("the generator lost its reach: %d reused, %d run again", reused, rerun)
	}
}
