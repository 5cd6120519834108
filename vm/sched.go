package vm

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/planc/planc/ir"
)

// advance dispatches every queued step that may go, one at a time in plan
// order (S17), until none can: a step earlier in the plan goes before a
// later one, so a later step's failure cannot hold back an earlier step
// that could go at the same moment. A step whose references or condition
// settle it at dispatch (S9, S12) frees its lane or slot for the next one
// at once.
func (r *run) advance() {
	for !r.stopped && !r.canceled {
		if !r.sched.CanDispatch() {
			return
		}
		if r.ctxDone() {
			r.cancel()
			return
		}
		r.dispatch(r.sched.Pop())
	}
}

// enqueue puts a step whose dependencies have all settled in its queue:
// a tool step waits for the lane, a shell or capsule step for a slot. Its
// references and condition wait for its dispatch (S9).
func (r *run) enqueue(i int32) {
	r.res[i].state = stQueued
	r.sched.Ready(i, r.prog.Steps[i].Kind)
}

// admit is the dispatch-time half of S9 and S12: it resolves step i's
// references and evaluates its condition at the moment the lane or a slot
// hands the step out. A reference to a step not yet settled fails the
// step (not dispatched, so no retries; on_error applies); a false
// condition settles it skipped. It reports whether the step goes on to
// its first attempt.
func (r *run) admit(i int32) bool {
	s := &r.prog.Steps[i]
	for _, ref := range s.Refs {
		if r.res[ref.Step].state != stSettled {
			id := r.prog.Steps[ref.Step].ID
			msg := "reference $" + id + "." + ref.Field.String() + ": step " + strconv.Quote(id) + " has not settled"
			r.fail(i, 0, "", msg, 0)
			return false
		}
	}
	if s.Cond != nil {
		vals, msg := r.values(s)
		if msg != "" {
			r.fail(i, 0, "", msg, 0) // as an unsettled reference
			return false
		}
		ok := s.Cond.Eval(vals)
		clear(vals) // a whole output is not kept beyond the condition
		if !ok {
			r.settle(i, StatusSkipped, 0, "", "", 0) // S12
			return false
		}
	}
	return true
}

// values resolves a step's reference slots (S8) into the run's scratch
// slice. Every referenced step has settled (admit checked it), and a
// settled result never changes, so retries see the same values. An
// output is read whole (S20, WholeOutputs); msg, when not "", is why one
// cannot be: the text of the step's failure.
func (r *run) values(s *ir.Step) (vals []ir.Value, msg string) {
	vals = r.vals[:0]
	for _, ref := range s.Refs {
		res := &r.res[ref.Step]
		if ref.Field == ir.FieldStatus {
			vals = append(vals, ir.Value{Text: res.status.String()})
			continue
		}
		text := r.out(ref.Step)
		if r.whole != nil && text != "" {
			if text, msg = r.wholeOutput(ref.Step, res); msg != "" {
				clear(vals)
				return nil, "reference $" + r.prog.Steps[ref.Step].ID + ".output: " + msg
			}
		}
		vals = append(vals, ir.Value{Text: text, Null: text == ""})
	}
	r.vals = vals
	return vals, ""
}

// wholeOutput asks the host for step i's whole output (S20), and returns
// why it cannot be had instead when it cannot.
func (r *run) wholeOutput(i int32, res *result) (text, msg string) {
	defer func() {
		if p := recover(); p != nil {
			text, msg = "", fmt.Sprintf("host panic reading the whole output: %v", p)
		}
	}()
	text, err := r.whole.WholeOutput(int(i), int(res.attempt), r.out(i))
	if err != nil {
		return "", errText(err)
	}
	return text, ""
}

// call builds the Call for one attempt of step i; msg, when not "", is
// why it cannot be built (values).
func (r *run) call(i int32, attempt int) (c Call, msg string) {
	s := &r.prog.Steps[i]
	c = Call{PlanID: r.prog.ID, Index: int(i), Step: s, Attempt: attempt}
	var vals []ir.Value
	switch s.Kind {
	case ir.KindTool:
		if t := s.Input; t != nil {
			if t.Static() {
				c.Input = json.RawMessage(t.Text)
			} else if vals, msg = r.values(s); msg == "" {
				c.Input = r.input(t, vals)
			}
		}
	case ir.KindCapsule:
		if vals, msg = r.values(s); msg == "" {
			c.Objective = s.Objective.Value(vals)
		}
	}
	clear(vals) // a whole output is not kept beyond the call
	return c, msg
}

// inputChunk is the size of the buffers tool inputs are carved from.
const inputChunk = 16 << 10

// input returns template t filled with vals. A small input is carved from
// the run's current chunk (one allocation for many tool steps instead of
// one each), capped at its own length so that nothing written after it
// reaches it: a host may keep an Input (Call: not modify it), and a chunk
// stays alive while an input in it is kept.
func (r *run) input(t *ir.Template, vals []ir.Value) json.RawMessage {
	n := t.Size(vals)
	if n > inputChunk/16 {
		return t.Append(make([]byte, 0, n), vals)
	}
	if cap(r.inputs)-len(r.inputs) < n {
		r.inputs = make([]byte, 0, inputChunk)
	}
	k := len(r.inputs)
	b := t.Append(r.inputs[k:k:k+n], vals)
	if len(b) <= n && cap(b) == n { // filled in place (else escapes made it grow)
		r.inputs = r.inputs[:k+len(b)]
		b = b[:len(b):len(b)]
	}
	return b
}

// dispatch admits step i (S9, S12), puts a tool or shell step to the
// host's refusal check, and then starts its first attempt.
func (r *run) dispatch(i int32) {
	if !r.admit(i) {
		return
	}
	c, msg := r.call(i, r.firstAttempt(i)+1)
	if msg != "" {
		r.fail(i, 0, "", msg, 0) // as an unsettled reference: no dispatch, no retries
		return
	}
	if c.Step.Kind != ir.KindCapsule {
		if msg, refused := r.refuse(c); refused {
			r.fail(i, 0, "", msg, 0) // no dispatch, so no retries
			return
		}
	}
	r.start(i, c)
}

// refuse asks the host's refusal check, and returns the refusal's text.
func (r *run) refuse(c Call) (msg string, refused bool) {
	defer func() {
		if p := recover(); p != nil {
			msg, refused = fmt.Sprintf("host panic in the refusal check: %v", p), true
		}
	}()
	if err := r.host.Refuse(r.ctx, c); err != nil {
		return errText(err), true
	}
	return "", false
}

// start dispatches one attempt on a dispatch goroutine (spawn).
func (r *run) start(i int32, c Call) {
	res := &r.res[i]
	res.state, res.attempt = stRunning, int32(c.Attempt)
	ctx := r.toolCtx
	switch c.Step.Kind {
	case ir.KindTool:
		ctx = r.callCtx // runs on for ToolGrace after the cancel (graceCalls)
	case ir.KindCapsule:
		ctx = withExited(r.ctx) // a sub-capsule is ended with the task (CapsuleEnded), unless it exited first (CapsuleExited)
	}
	r.sched.Start(c.Step.Kind)
	r.inflight++
	r.emit(Event{Kind: PlanStepStart, StepID: c.Step.ID, StepKind: c.Step.Kind, Attempt: c.Attempt})
	r.spawn(ctx, c)
}

// work runs one attempt on a dispatch goroutine: one host call, whose end
// (or panic) it returns for the scheduler.
//
// On the monotonic clock (no Options.Now), m0 is the reading the attempt
// starts at, or -1 for one to be taken now; end is the reading it ended at,
// which a pooled goroutine that goes straight on to its next attempt passes
// as that one's start (one clock reading an attempt; duration_ms counts
// whole milliseconds, so the nanoseconds between the two do not show).
func (r *run) work(ctx context.Context, c *Call, m0 time.Duration) (done completion, end time.Duration) {
	done.index = int32(c.Index)
	var t0 time.Time
	if r.now != nil {
		t0 = r.now()
	} else if m0 < 0 {
		m0 = time.Since(r.base)
	}
	defer func() {
		if p := recover(); p != nil {
			done.out, done.failed, done.err = "", true, fmt.Sprintf("host panic: %v", p)
		}
		if r.now != nil {
			done.dur = r.now().Sub(t0)
		} else {
			end = time.Since(r.base)
			done.dur = end - m0
		}
		if c.Step.Kind == ir.KindCapsule && ctx.Err() != nil && !capsuleExited(ctx) {
			done.ended = true
		}
	}()
	var err error
	switch c.Step.Kind {
	case ir.KindTool:
		done.out, err = r.host.CallTool(ctx, *c)
	case ir.KindShell:
		done.out, err = r.host.RunShell(ctx, *c)
	default:
		done.out, err = r.host.SpawnCapsule(ctx, *c)
	}
	if err != nil {
		// Here, not in the scheduler: a host's Error method may panic too.
		done.failed, done.err = true, errText(err)
		if c.Step.Kind == ir.KindTool && ctx.Err() != nil {
			done.err = ToolEnded
		}
	}
	return done, end
}

// complete handles one attempt's end: success, a retry at once (S19), or
// the step's final failure.
func (r *run) complete(c completion) {
	if !r.cancelSeen && r.ctxDone() {
		r.cancel() // the cancel landed first: settle what it skips first
	}
	i := c.index
	s := &r.prog.Steps[i]
	r.inflight--
	r.sched.End(s.Kind)
	attempt := int(r.res[i].attempt)
	retried := attempt - r.firstAttempt(i) - 1 // dispatches after this run's first (S26: retries whole again)
	switch {
	case c.ended:
		r.settle(i, StatusFailed, attempt, c.out, CapsuleEnded, c.dur)
	case !c.failed:
		r.settle(i, StatusSuccess, attempt, c.out, "", c.dur)
	case retried < s.Retries && !r.stopped && !r.cancelSeen:
		next, msg := r.call(i, attempt+1)
		if msg != "" { // its whole output read once, a reference's kept file cannot be now
			r.fail(i, attempt, c.out, c.err+"; not retried: "+msg, c.dur)
			break
		}
		r.emit(Event{Kind: PlanStep, StepID: s.ID, Status: StatusFailed, Attempt: attempt, Duration: c.dur, Error: c.err})
		r.start(i, next)
	case r.cancelSeen:
		r.settle(i, StatusFailed, attempt, c.out, c.err, c.dur) // no on_error once cancelled
	default:
		r.fail(i, attempt, c.out, c.err, c.dur)
	}
}

// fail settles step i's final failure under its on_error (S18).
func (r *run) fail(i int32, attempt int, out, err string, dur time.Duration) {
	switch r.prog.Steps[i].OnError {
	case ir.OnErrorSkip:
		r.settle(i, StatusSkipped, attempt, out, err, dur)
	case ir.OnErrorContinue:
		r.settle(i, StatusFailed, attempt, out, err, dur)
	default:
		if !r.stopped {
			r.stopped, r.failedStep = true, i
			r.sched.Clear()
		}
		r.settle(i, StatusFailed, attempt, out, err, dur)
	}
}

// settle records step i's result, writes its plan_step line, and makes
// ready the dependents it was the last dependency of, unless the plan has
// stopped.
func (r *run) settle(i int32, st Status, attempt int, out, err string, dur time.Duration) {
	res := &r.res[i]
	res.state, res.status = stSettled, st
	r.setOut(i, out)
	r.setErr(i, err)
	s := &r.prog.Steps[i]
	r.report(i, s.ID)
	r.emit(Event{Kind: PlanStep, StepID: s.ID, Status: st, Attempt: attempt, Duration: dur, Error: err, Final: true, Stopped: r.stopped && r.failedStep == i})
	r.release(i)
}

// report adds settled step i, whose id is id, to the report's steps:
// they are in settle order, and a settled result never changes, so its
// output and error are pointed to where the run keeps them.
func (r *run) report(i int32, id string) {
	res := &r.res[i]
	sr := StepReport{StepID: id, Status: res.status}
	if r.outs.at(i) != "" {
		sr.Output = &r.outs[i]
	}
	if r.errs.at(i) != "" {
		sr.Error = &r.errs[i]
	}
	r.steps = append(r.steps, sr)
	r.counts[res.status]++
}

// release counts settled step i off its dependents' waits and makes ready
// those it was the last dependency of, unless the plan has stopped. A
// dependent already settled (reused by a redrive) is not made ready again.
func (r *run) release(i int32) {
	if r.stopped || r.canceled {
		return
	}
	r.warm(i)
	for _, d := range r.prog.Steps[i].Dependents {
		res := &r.res[d]
		if res.remaining--; res.remaining == 0 && res.state == stPending {
			r.enqueue(d)
		}
	}
}

// cancel handles the cancel landing: every step not yet dispatched settles
// skipped with CanceledBeforeRun, in plan order, and nothing more is
// dispatched or retried (S22). A cancel that lands after a fail-stop, while
// steps still run, makes the plan cancelled all the same (S30, V12): no
// on_error policy applies once the task is cancelled, so the fail-stop's
// failed_step is dropped and the steps it left undispatched settle as any
// cancel settles them.
func (r *run) cancel() {
	r.cancelSeen = true
	if r.canceled {
		return
	}
	r.canceled = true
	r.graceCalls()
	r.sched.Clear()
	for i := range r.res {
		if st := r.res[i].state; st == stPending || st == stQueued {
			r.settle(int32(i), StatusSkipped, 0, "", CanceledBeforeRun, 0)
		}
	}
}

// graceCalls gives a tool call already running when the cancel landed
// ToolGrace to settle with its own result (the seed's "runs to its own
// bound"), and then cancels its context: a call blocked on a tool that
// never answers cannot hold a cancelled plan. Abort ends the grace at
// once. The goroutine it starts ends by Run's end (stopToolGrace).
func (r *run) graceCalls() {
	grace := r.opts.ToolGrace
	if grace == 0 {
		grace = DefaultToolGrace
	}
	if grace < 0 {
		r.endCalls()
		return
	}
	r.graceEnd, r.graceOut = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(r.graceOut)
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.opts.Abort:
		case <-r.graceEnd:
			return
		}
		r.endCalls()
	}()
}

// stopToolGrace ends graceCalls' goroutine, if any, and waits for it;
// every call has returned by then.
func (r *run) stopToolGrace() {
	if r.graceEnd != nil {
		close(r.graceEnd)
		<-r.graceOut
	}
	r.endCalls()
}

// errText is an error's text for the report; a failure always has one.
func errText(err error) string {
	if s := err.Error(); s != "" {
		return s
	}
	return "the step failed without a message"
}

// warmAhead is how far past a settled step warm reads.
const warmAhead = 128

// warm reads the fields the VM uses (ir.Step's first 96 bytes: ID,
// Dependents and Input lie across them) of the steps up to warmAhead past
// settled step i. A cursor makes it read each step once a run, in plan
// order. Steps settle in roughly plan order, so the ones about to become
// ready are just ahead; read in order and independently of one another,
// their cache misses overlap, where otherwise each is taken alone, in the
// order steps become ready, which no prefetcher follows. On a plan far
// bigger than the cache (100,000 steps are 17 MB) that is most of what a
// step costs over a small plan's.
func (r *run) warm(i int32) {
	steps := r.prog.Steps
	end := min(int(i)+warmAhead, len(steps))
	var x uint8
	for ; int(r.warmed) < end; r.warmed++ {
		s := &steps[r.warmed]
		x ^= uint8(len(s.ID)) ^ uint8(len(s.Dependents))
		if s.Input != nil {
			x++
		}
	}
	r.sink ^= x
}
