package vm

import (
	"fmt"
	"strconv"
)

// Prior is what the earlier runs of the same plan recorded for one step:
// the input of a redrive (S25–S28). The host reads it back from the
// session (package tracefile, PlanRecord.Prior) and hands the VM one per
// step in Options.Prior; the VM alone decides what it reuses (S26).
//
// The zero Prior is a step the earlier runs never settled: never
// dispatched, or dispatched and unsettled when the runtime died.
type Prior struct {
	// Status is the step's last settled status, 0 when it never settled.
	// Only StatusSuccess is reused; a step with any other runs again as if
	// fresh.
	Status Status
	// Output is the output text the step's result carried, exactly as
	// the report held it: the cut text with its mark when it was over
	// 64 KiB (S20). "" is no output (V1). References read the whole text
	// from it as from a dispatch's (WholeOutputs, with Attempt).
	Output string
	// Error is the step's recorded error ("" for none); a reused step
	// keeps it in its report entry.
	Error string
	// Attempt is the highest attempt the trace holds for the step, 0 when
	// it was never dispatched: the redrive's first dispatch of the step is
	// Attempt+1, so attempt numbers (and the delegation ids made from
	// them) never repeat. A reused step's plan_step carries the attempt of
	// its recorded success, which is also its highest.
	Attempt int
}

// Reused reports whether a redrive reuses the step: its last settled
// status was success (S26).
func (p *Prior) Reused() bool { return p.Status == StatusSuccess }

// checkPrior validates Options.Prior against a program of n steps.
func checkPrior(prior []Prior, n int) error {
	if prior == nil {
		return nil
	}
	if len(prior) != n {
		return fmt.Errorf("vm: Options.Prior holds %d steps, the program %d", len(prior), n)
	}
	for i := range prior {
		p := &prior[i]
		if p.Status > StatusSkipped {
			return fmt.Errorf("vm: Options.Prior[%d]: invalid status %d", i, p.Status)
		}
		if p.Attempt < 0 {
			return fmt.Errorf("vm: Options.Prior[%d]: negative attempt %d", i, p.Attempt)
		}
	}
	return nil
}

// reuse settles every step whose prior success a redrive keeps, in plan
// order, before anything is queued or dispatched (S26), and sets where
// the attempt numbers of the others continue. A reused step writes one
// plan_step line with reused: true (S28).
func (r *run) reuse() {
	prior := r.opts.Prior
	// Every reused step is settled before any is released, so that one
	// reused step's release never makes another reused step ready.
	if prior != nil {
		r.first = make([]int32, len(prior))
	}
	for i := range prior {
		p, res := &prior[i], &r.res[i]
		r.first[i] = int32(p.Attempt)
		if p.Reused() {
			res.state, res.status, res.attempt = stSettled, StatusSuccess, int32(p.Attempt)
			r.setOut(int32(i), p.Output)
			r.setErr(int32(i), p.Error)
		}
	}
	for i := range prior {
		p := &prior[i]
		if !p.Reused() {
			continue
		}
		id := r.prog.Steps[i].ID
		r.report(int32(i), id)
		r.emit(Event{Kind: PlanStep, StepID: id, Status: StatusSuccess, Attempt: p.Attempt, Error: p.Error, Reused: true, OutputBytes: len(p.Output), Final: true})
		r.release(int32(i))
	}
}

// appendRedrive writes plan_start's and plan_end's "redrive" member, only
// on a redrive (S28).
func appendRedrive(dst []byte, k int) []byte {
	if k <= 0 {
		return dst
	}
	dst = append(dst, `,"redrive":`...)
	return strconv.AppendInt(dst, int64(k), 10)
}
