package vm

import (
	"context"
	"sync"
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

// pool is a run's dispatch goroutines. A pooled goroutine runs one attempt,
// sends its completion and waits for its next job; the scheduler counts it
// idle when it receives that completion, and hands out a job only to an
// idle goroutine, so a job is never queued behind a host call. Only the
// goroutine that called Run touches idle and size.
type pool struct {
	jobs chan job // to the idle pooled goroutines; never more jobs than idle ones
	idle int      // pooled goroutines done with their attempt and not handed a job
	size int      // pooled goroutines started
	wg   sync.WaitGroup
}

// spawn runs one attempt of c on a dispatch goroutine: an idle pooled one,
// a new pooled one while there are fewer than poolSize, else one of its own.
func (r *run) spawn(ctx context.Context, c Call) {
	p := &r.pool
	switch {
	case p.idle > 0:
		p.idle--
		p.jobs <- job{ctx, c} // buffered past poolSize: never blocks
	case p.size < poolSize:
		if p.jobs == nil {
			p.jobs = make(chan job, poolSize)
		}
		p.size++
		p.wg.Add(1)
		go r.worker(job{ctx, c})
	default:
		p.wg.Add(1)
		go r.once(ctx, c)
	}
}

// worker is a pooled dispatch goroutine: it runs attempts until the run
// closes the jobs channel.
func (r *run) worker(j job) {
	defer r.pool.wg.Done()
	for {
		d := r.work(j.ctx, &j.c)
		d.pooled = true
		r.done <- d
		var ok bool
		if j, ok = <-r.pool.jobs; !ok {
			return
		}
	}
}

// once is a dispatch goroutine for one attempt, used when every pooled one
// is in a host call.
func (r *run) once(ctx context.Context, c Call) {
	defer r.pool.wg.Done()
	r.done <- r.work(ctx, &c)
}

// stop ends the pooled goroutines; every attempt has completed (nothing is
// in flight), so each is idle. It returns when every dispatch goroutine the
// run started has returned.
func (p *pool) stop() {
	if p.jobs != nil {
		close(p.jobs)
	}
	p.wg.Wait()
}
