package vm

import (
	"context"
	"sync"
	"time"
)

// poolSize bounds the dispatch goroutines one run keeps for reuse. A step
// dispatched while all of them are in host calls gets a goroutine of its
// own, so a blocked host call never holds back another step.
const poolSize = 64

// job is one attempt handed to a dispatch goroutine.
type job struct {
	ctx context.Context
	c   Call
}

// pool is a run's dispatch goroutines and the queues between them and the
// scheduler. The scheduler queues the attempts it dispatched in one pass
// (flush) and takes every completion that has come in at once (take); a
// pooled goroutine that ends an attempt takes the next queued one before
// it sleeps. So while both sides have work neither waits for the other,
// and a run does not pay a goroutine hand-off a step.
//
// The scheduler is a role, held by one goroutine at a time (owner, under
// mu): the goroutine that called Run holds it while it has work, and gives
// it up when it waits for completions. A dispatch goroutine that then ends
// an attempt takes the role and does the scheduler's pass itself (drive)
// instead of waking it, and a pooled one runs the first attempt that pass
// dispatched itself: so a chain of host calls that return at once, as
// tool steps on the one tool lane are, costs no goroutine hand-off a step.
// It hands the role back to Run's goroutine when the run has nothing left
// in flight, or when more completions came in while it drove and it has
// an attempt of its own to run, which then waits for no scheduler work.
//
// A job is queued only while there are more free pooled goroutines (not in
// a host call nor driving) than queued jobs, and enough of them are awake
// to take every queued job, so a job never waits behind a host call; past
// that, a new pooled goroutine (up to poolSize) or one of its own runs it.
type pool struct {
	mu        sync.Mutex
	cond      sync.Cond     // parked pooled goroutines wait here (L is &mu)
	jobs      []job         // queued, from jobs[head]
	head      int           //
	comps     []completion  // ended attempts, for the scheduler
	free      int           // pooled goroutines not in a host call nor driving
	parked    int           // of them, waiting on cond and not yet woken
	owner     uint8         // who holds the scheduler's role
	cancelReq bool          // Run's goroutine saw the cancel while a dispatch goroutine drove
	closed    bool          // stop: the pooled goroutines return
	wake      chan struct{} // hands the role back to Run's goroutine
	wg        sync.WaitGroup

	// The scheduler's own (whoever holds the role).
	size     int          // pooled goroutines started
	pending  []job        // dispatched since the last flush
	spare    []completion // the buffer take swaps with comps
	claim    bool         // the driver is a pooled goroutine: flush keeps it one attempt
	hasClaim bool         // claimed holds that attempt
	claimed  job
}

// Who holds the scheduler's role.
const (
	ownerRun    uint8 = iota // Run's goroutine: running, or handed the role (a token on wake)
	ownerNone                // nobody: Run's goroutine waits; the next ending attempt drives
	ownerWorker              // a dispatch goroutine drives
)

func (p *pool) init() {
	p.cond.L = &p.mu
	p.wake = make(chan struct{}, 1)
}

// spawn dispatches one attempt of c; flush hands it to a goroutine.
func (r *run) spawn(ctx context.Context, c Call) {
	r.pool.pending = append(r.pool.pending, job{ctx, c})
}

// flush hands the pending attempts to dispatch goroutines: the first to
// a driving pooled goroutine itself (claim), the rest queued for the free
// pooled ones, waking as many parked ones as it takes, and past that each
// on a new pooled goroutine or, past poolSize, one of its own.
func (r *run) flush() {
	p := &r.pool
	pending := p.pending
	if len(pending) == 0 {
		return
	}
	if p.claim && !p.hasClaim {
		p.claimed, p.hasClaim = pending[0], true
		pending = pending[1:]
	}
	n := 0
	if len(pending) > 0 {
		p.mu.Lock()
		for ; n < len(pending) && len(p.jobs)-p.head < p.free; n++ {
			p.jobs = append(p.jobs, pending[n])
		}
		for awake := p.free - p.parked; len(p.jobs)-p.head > awake && p.parked > 0; awake++ {
			p.parked--
			p.cond.Signal()
		}
		p.mu.Unlock()
	}
	for _, j := range pending[n:] {
		p.wg.Add(1)
		if p.size < poolSize {
			p.size++
			go r.worker(j)
		} else {
			go r.once(j)
		}
	}
	clear(p.pending)
	p.pending = p.pending[:0]
}

// takeLocked returns every completion that has come in, and whether Run's
// goroutine saw the cancel while a dispatch goroutine drove; p.mu is held.
// The slice is the scheduler's until the next take.
func (p *pool) takeLocked() (cs []completion, canceled bool) {
	cs, p.comps = p.comps, p.spare[:0]
	p.spare = cs
	canceled, p.cancelReq = p.cancelReq, false
	return cs, canceled
}

// take is Run's goroutine's wait: it returns every completion that has
// come in, giving up the scheduler's role while there is none until a
// dispatch goroutine hands it back. It returns canceled instead when
// cancel (nil: never) is closed first, holding the role; when a dispatch
// goroutine drives at that moment, that one handles the cancel.
func (p *pool) take(cancel <-chan struct{}) (cs []completion, canceled bool) {
	p.mu.Lock()
	if len(p.comps) == 0 && !p.cancelReq {
		p.owner = ownerNone
		p.mu.Unlock()
		if cancel == nil { // a plain receive is cheaper than a select
			<-p.wake
		} else {
			select {
			case <-p.wake:
			case <-cancel:
				p.mu.Lock()
				switch p.owner {
				case ownerNone:
					p.owner = ownerRun
					p.mu.Unlock()
					return nil, true
				case ownerRun: // handed back as the cancel landed
					p.mu.Unlock()
					<-p.wake
					return nil, true
				}
				p.cancelReq = true // for the driver, before it gives up the role
				p.mu.Unlock()
				<-p.wake
			}
		}
		p.mu.Lock()
	}
	cs, canceled = p.takeLocked()
	p.mu.Unlock()
	return cs, canceled
}

// handBack gives the scheduler's role back to Run's goroutine; p.mu is
// held.
func (p *pool) handBack() {
	p.owner = ownerRun
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// drive does the scheduler's passes on a dispatch goroutine that took the
// role (p.owner is ownerWorker; p.mu is not held) with the completions cs
// it took, until there is nothing to do, and returns the attempt it
// claimed, if any (claim: only a pooled goroutine runs one).
func (r *run) drive(claim bool, cs []completion, canceled bool) (j job, ok bool) {
	p := &r.pool
	p.claim = claim
	for {
		r.pass(cs, canceled)
		p.mu.Lock()
		more := len(p.comps) > 0 || p.cancelReq
		if more && !p.hasClaim {
			cs, canceled = p.takeLocked()
			p.mu.Unlock()
			continue
		}
		if more || r.inflight == 0 {
			p.handBack()
		} else {
			p.owner = ownerNone
		}
		j, ok = p.claimed, p.hasClaim
		p.claimed, p.hasClaim, p.claim = job{}, false, false
		p.mu.Unlock()
		return j, ok
	}
}

// worker is a pooled dispatch goroutine: it runs attempts, taking the next
// queued one when it ends one, until stop. When it ends an attempt while
// nobody holds the scheduler's role, it drives the scheduler itself and
// runs the attempt it claimed.
func (r *run) worker(j job) {
	p := &r.pool
	defer p.wg.Done()
	start := time.Duration(-1)
	for {
		d, end := r.work(j.ctx, &j.c, start)
		j = job{}
		start = end // the next attempt starts now, unless this one waits
		p.mu.Lock()
		p.comps = append(p.comps, d)
		if p.owner == ownerNone {
			p.owner = ownerWorker
			cs, canceled := p.takeLocked()
			p.mu.Unlock()
			var ok bool
			j, ok = r.drive(true, cs, canceled)
			start = -1 // driving took its time
			if ok {
				continue
			}
			p.mu.Lock()
		}
		p.free++
		for p.head == len(p.jobs) {
			if p.closed {
				p.mu.Unlock()
				return
			}
			p.parked++ // flush or stop wakes it, counting it off
			p.cond.Wait()
			start = -1
		}
		j = p.jobs[p.head]
		p.jobs[p.head] = job{}
		if p.head++; p.head == len(p.jobs) {
			p.jobs, p.head = p.jobs[:0], 0
		}
		p.free--
		p.mu.Unlock()
	}
}

// once is a dispatch goroutine for one attempt, used when every pooled one
// is in a host call.
func (r *run) once(j job) {
	p := &r.pool
	defer p.wg.Done()
	d, _ := r.work(j.ctx, &j.c, -1)
	p.mu.Lock()
	p.comps = append(p.comps, d)
	if p.owner != ownerNone {
		p.mu.Unlock()
		return
	}
	p.owner = ownerWorker
	cs, canceled := p.takeLocked()
	p.mu.Unlock()
	r.drive(false, cs, canceled)
}

// stop ends the pooled goroutines; every attempt has completed (nothing is
// in flight), so none is in a host call. It returns when every dispatch
// goroutine the run started has returned.
func (p *pool) stop() {
	p.mu.Lock()
	p.closed = true
	p.parked = 0
	p.cond.Broadcast()
	p.mu.Unlock()
	p.wg.Wait()
}
