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
// A job is queued only while there are more free pooled goroutines (not in
// a host call) than queued jobs, and enough of them are awake to take
// every queued job, so a job never waits behind a host call; past that, a
// new pooled goroutine (up to poolSize) or one of its own runs it.
type pool struct {
	mu      sync.Mutex
	cond    sync.Cond    // parked pooled goroutines wait here (L is &mu)
	jobs    []job        // queued, from jobs[head]
	head    int          //
	comps   []completion // ended attempts, for the scheduler
	free    int          // pooled goroutines not in a host call
	parked  int          // of them, waiting on cond and not yet woken
	waiting bool         // the scheduler waits on wake
	closed  bool         // stop: the pooled goroutines return
	wake    chan struct{}
	wg      sync.WaitGroup

	// The scheduler's own.
	size    int          // pooled goroutines started
	pending []job        // dispatched since the last flush
	spare   []completion // the buffer take swaps with comps
}

func (p *pool) init() {
	p.cond.L = &p.mu
	p.wake = make(chan struct{}, 1)
}

// spawn dispatches one attempt of c; flush hands it to a goroutine.
func (r *run) spawn(ctx context.Context, c Call) {
	r.pool.pending = append(r.pool.pending, job{ctx, c})
}

// flush hands the pending attempts to dispatch goroutines: queued for the
// free pooled ones, waking as many parked ones as it takes, and the rest
// each on a new pooled goroutine or, past poolSize, one of its own.
func (r *run) flush() {
	p := &r.pool
	if len(p.pending) == 0 {
		return
	}
	n := 0
	p.mu.Lock()
	for ; n < len(p.pending) && len(p.jobs)-p.head < p.free; n++ {
		p.jobs = append(p.jobs, p.pending[n])
	}
	for awake := p.free - p.parked; len(p.jobs)-p.head > awake && p.parked > 0; awake++ {
		p.parked--
		p.cond.Signal()
	}
	p.mu.Unlock()
	for _, j := range p.pending[n:] {
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

// deliver passes an ended attempt to the scheduler, waking it when it
// waits; p.mu is held.
func (p *pool) deliver(d completion) {
	p.comps = append(p.comps, d)
	if p.waiting {
		p.waiting = false
		select {
		case p.wake <- struct{}{}:
		default:
		}
	}
}

// take waits for completions and returns every one that has come in; the
// slice is the scheduler's until the next take. It returns canceled
// instead when cancel (nil: never) is closed first.
func (p *pool) take(cancel <-chan struct{}) (cs []completion, canceled bool) {
	p.mu.Lock()
	for len(p.comps) == 0 {
		p.waiting = true
		p.mu.Unlock()
		if cancel == nil { // a plain receive is cheaper than a select
			<-p.wake
		} else {
			select {
			case <-p.wake:
			case <-cancel:
				p.mu.Lock()
				p.waiting = false
				p.mu.Unlock()
				return nil, true
			}
		}
		p.mu.Lock()
	}
	p.waiting = false
	cs, p.comps = p.comps, p.spare[:0]
	p.spare = cs
	p.mu.Unlock()
	return cs, false
}

// worker is a pooled dispatch goroutine: it runs attempts, taking the next
// queued one when it ends one, until stop.
func (r *run) worker(j job) {
	p := &r.pool
	defer p.wg.Done()
	start := time.Duration(-1)
	for {
		d, end := r.work(j.ctx, &j.c, start)
		j = job{}
		p.mu.Lock()
		p.deliver(d)
		p.free++
		start = end // the next attempt starts now, unless this one waits
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
	p.deliver(d)
	p.mu.Unlock()
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
