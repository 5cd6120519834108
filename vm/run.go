package vm

import (
	"context"
	"errors"
	"time"

	"github.com/planc/planc/ir"
)

// Options tunes one Run. The zero Options is the behaviour docs/plans.md
// describes.
type Options struct {
	// MaxParallel caps the shell and capsule steps in flight at once; 0
	// means no cap (S17). Tool steps always run one at a time.
	MaxParallel int
	// PlanFile is plan_start's plan_file, e.g. "plans/plan-1.json"; "" is
	// written as null.
	PlanFile string
	// PlanSHA256 is plan_start's sha256: the hex SHA-256 of the plan
	// file's bytes (S24); "" leaves the member out.
	PlanSHA256 string
	// Now is the clock for duration_ms; nil means the monotonic clock
	// (time.Since a start taken once, one clock reading an attempt end).
	// It is called from the dispatch goroutines, so it must be safe for
	// concurrent use.
	Now func() time.Time

	// Redrive is K when this run is the K-th redrive of its plan (S28):
	// plan_start and plan_end then carry "redrive": K. 0 is a first run,
	// whose lines have no redrive member.
	Redrive int
	// ToolGrace is how long a tool call already running when ctx is
	// cancelled may go on to its own result (docs/plans.md, "Cancel": it
	// "runs to its own bound and settles with its own result"). Then its
	// context is cancelled, and a call that fails after that settles
	// failed with ToolEnded. 0 is DefaultToolGrace; a negative grace
	// cancels the call's context with ctx.
	ToolGrace time.Duration
	// Abort, once closed after ctx's cancel, ends the grace at once (a
	// second SIGINT). nil never closes.
	Abort <-chan struct{}

	// Prior makes the run a redrive: indexed by step index, one entry per
	// step of the program, what the earlier runs recorded (S26). Every step
	// whose Prior is a success settles at once, in plan order, before
	// anything is dispatched, with its recorded output and no dispatch;
	// every other step runs again as if fresh, its attempt numbers going on
	// from Prior.Attempt. nil is a first run.
	Prior []Prior
}

// DefaultToolGrace is the tool calls' grace after a cancel: the 5 s a
// sub-capsule has between its SIGTERM and its SIGKILL.
const DefaultToolGrace = 5 * time.Second

// Run runs prog against host until every step it dispatched has settled,
// and returns the report. Cancelling ctx cancels the plan as docs/plans.md,
// "Cancel", says (S22, S30); that is an outcome in the report, not an error.
// The error is non-nil only when Run cannot start: a nil or invalid program or
// a nil host. No goroutine Run started outlives it; Run waits for the host to
// return from every dispatch it made.
func Run(ctx context.Context, prog *ir.Program, host Host, opts Options) (Report, error) {
	if host == nil {
		return Report{}, errors.New("vm: nil host")
	}
	if err := prog.Validate(); err != nil {
		return Report{}, err
	}
	if opts.MaxParallel < 0 {
		return Report{}, errors.New("vm: negative MaxParallel")
	}
	if opts.Redrive < 0 {
		return Report{}, errors.New("vm: negative Redrive")
	}
	if err := checkPrior(opts.Prior, len(prog.Steps)); err != nil {
		return Report{}, err
	}
	r := newRun(ctx, prog, host, opts)
	r.loop()
	r.pool.stop()
	r.stopToolGrace()
	return r.finish(), nil
}

// step states of one run.
const (
	stPending uint8 = iota // waiting for dependencies
	stQueued               // ready, waiting for the lane or a slot (S9: not yet admitted)
	stRunning              // dispatched, an attempt in flight
	stSettled              // in the report
)

// result is one step's per-run state, kept small (12 bytes, no pointers,
// so the collector neither scans it nor puts a write barrier on it): a run
// has one a step. A step's output and error texts are in run.outs and
// run.errs, and the attempt before this run's first dispatch in run.first,
// each made only when needed.
type result struct {
	remaining int32 // dependencies not yet settled
	attempt   int32
	status    Status
	state     uint8
}

// completion is one attempt's end, sent by its goroutine.
type completion struct {
	index  int32
	out    string
	err    string // the error's text when failed
	failed bool
	dur    time.Duration
	ended  bool // a capsule whose context was cancelled before it returned
}

// run is the state of one Run. Only the goroutine that holds the
// scheduler's role (pool) touches it, except for the fields the dispatch
// goroutines read (host, now, done).
type run struct {
	ctx     context.Context
	toolCtx context.Context // ctx without its cancel: shell steps run on (S22)
	// callCtx is what tool calls run on: toolCtx, cancelled by endCalls
	// ToolGrace after ctx's cancel (graceCalls).
	callCtx  context.Context
	endCalls context.CancelFunc
	graceEnd chan struct{} // closed to end graceCalls' goroutine early
	graceOut chan struct{} // closed when it has returned
	prog     *ir.Program
	host     Host
	whole    WholeOutputs // host's, or nil
	opts     Options
	now      func() time.Time // opts.Now, or nil for the monotonic clock
	base     time.Time        // the monotonic clock's zero
	doneCh   <-chan struct{}  // ctx.Done(), nil when ctx cannot be cancelled
	pool     pool

	res    []result
	outs   texts        // indexed by step, nil until a step settles with an output
	errs   texts        // indexed by step, nil until a step settles with an error
	first  []int32      // Prior.Attempt by step, nil on a first run
	steps  []StepReport // the report's steps, in settle order
	counts [4]int       // settled steps by Status
	sched  Scheduler    // ready steps, the tool lane and the slots (S17)
	vals   []ir.Value
	inputs []byte // the chunk tool inputs are carved from (input)

	warmed     int32 // steps below this index have been warmed (warm)
	sink       uint8 // what warm read, so that its loads are kept
	inflight   int   // attempts in flight
	stopped    bool  // a step's failure under on_error fail stopped the plan
	cancelSeen bool  // ctx's cancel was observed
	canceled   bool  // the plan stopped because of the cancel
	failedStep int32
}

func newRun(ctx context.Context, prog *ir.Program, host Host, opts Options) *run {
	n := len(prog.Steps)
	r := &run{
		ctx:        ctx,
		toolCtx:    context.WithoutCancel(ctx),
		prog:       prog,
		host:       host,
		opts:       opts,
		now:        opts.Now,
		res:        make([]result, n),
		steps:      make([]StepReport, 0, n),
		failedStep: -1,
	}
	for i, d := range prog.InDegree {
		r.res[i].remaining = d
	}
	if r.now == nil {
		r.base = time.Now()
	}
	r.doneCh = ctx.Done()
	r.callCtx, r.endCalls = context.WithCancel(r.toolCtx)
	r.pool.init()
	r.sched.init(opts.MaxParallel, n)
	r.whole, _ = host.(WholeOutputs)
	return r
}

// loop is the scheduler: it dispatches until nothing is in
// flight, waiting for completions and for the cancel in between.
func (r *run) loop() {
	r.emit(Event{Kind: PlanStart, PlanFile: r.opts.PlanFile, Steps: len(r.prog.Steps), SHA256: r.opts.PlanSHA256, Redrive: r.opts.Redrive})
	r.reuse()
	if r.ctxDone() {
		r.cancel()
	} else {
		for _, i := range r.prog.Roots {
			if r.res[i].state == stPending {
				r.enqueue(i)
			}
		}
	}
	r.pass(nil, false)
	cancelCh := r.doneCh
	for r.inflight > 0 {
		if r.cancelSeen {
			cancelCh = nil
		}
		cs, canceled := r.pool.take(cancelCh)
		if canceled {
			cancelCh = nil
		}
		r.pass(cs, canceled)
	}
}

// pass is one turn of the scheduler, by whichever goroutine holds its
// role (pool): the cancel when it landed, then the completions cs one at
// a time, as they came in, each followed by the dispatches it allows, as
// if each had been waited for alone; then it hands the attempts it
// dispatched to dispatch goroutines.
func (r *run) pass(cs []completion, canceled bool) {
	if canceled {
		r.cancel()
	}
	for k := range cs {
		if k > 0 {
			r.advance()
		}
		r.complete(cs[k])
		cs[k] = completion{}
	}
	r.advance()
	r.flush()
}

// texts holds one text a step, made at the first one that is not empty:
// a run whose steps have no output (or, as most, no error) keeps none.
type texts []string

// set records step i's text s; n is the number of steps.
func (t *texts) set(n int, i int32, s string) {
	if *t == nil {
		if s == "" {
			return
		}
		*t = make([]string, n)
	}
	(*t)[i] = s
}

// at is step i's text, "" until one is set.
func (t texts) at(i int32) string {
	if t == nil {
		return ""
	}
	return t[i]
}

// setOut records step i's output text.
func (r *run) setOut(i int32, out string) { r.outs.set(len(r.res), i, out) }

// out is step i's output text, "" until it settles with one.
func (r *run) out(i int32) string { return r.outs.at(i) }

// setErr records step i's error text.
func (r *run) setErr(i int32, err string) { r.errs.set(len(r.res), i, err) }

// firstAttempt is the attempt before this run's first dispatch of step i:
// Prior.Attempt on a redrive, else 0.
func (r *run) firstAttempt(i int32) int {
	if r.first == nil {
		return 0
	}
	return int(r.first[i])
}

// ctxDone reports whether ctx is done, without blocking.
func (r *run) ctxDone() bool {
	if r.doneCh == nil {
		return false
	}
	select {
	case <-r.doneCh:
		return true
	default:
		return false
	}
}

// finish builds the Report from the settled steps and writes plan_end.
func (r *run) finish() Report {
	rep := Report{PlanID: r.prog.ID, Steps: r.steps}
	rep.Succeeded = r.counts[StatusSuccess]
	rep.FailedSteps = r.counts[StatusFailed]
	rep.Skipped = r.counts[StatusSkipped]
	switch {
	case r.canceled:
		rep.Canceled, rep.Outcome = true, Canceled
	case r.stopped:
		rep.Outcome = Failed
		id := r.prog.Steps[r.failedStep].ID
		rep.FailedStep = &id
	default:
		rep.Completed, rep.Outcome = true, Completed
	}
	rep.Failed = !rep.Completed
	rep.Summary = summary(&rep, len(r.prog.Steps))
	end := Event{Kind: PlanEnd, Redrive: r.opts.Redrive, Outcome: rep.Outcome, Succeeded: rep.Succeeded, Failed: rep.FailedSteps, Skipped: rep.Skipped}
	if rep.FailedStep != nil {
		end.FailedStep = *rep.FailedStep
	}
	r.emit(end)
	return rep
}

// emit sends an event to the host; a panicking sink loses the event, never
// the run.
func (r *run) emit(e Event) {
	e.PlanID = r.prog.ID
	defer func() { _ = recover() }()
	r.host.Trace(e)
}
