package capsule

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/planc/planc/host/session"
)

// ParentWatch is a sub-capsule's run's watch over its lifeline: the pipe
// whose write end only its parent holds (WatchParent).
type ParentWatch struct {
	ended atomic.Bool
	stop  chan struct{}
	done  chan struct{}
}

// WatchParent watches ended, which closes when the parent that spawned
// this sub-capsule is gone, for a run: it then writes spawner_ended to tr,
// cancels the plan and, a grace period later, aborts it: nothing waits for
// this sub-capsule's work any more. It returns the run's context and
// abort channel from then on (abort, the run's own, still aborts). A nil
// ended watches nothing and returns ctx and abort.
func WatchParent(ctx context.Context, ended, abort <-chan struct{}, tr *session.Trace) (context.Context, <-chan struct{}, *ParentWatch) {
	w := &ParentWatch{stop: make(chan struct{}), done: make(chan struct{})}
	if ended == nil {
		close(w.done)
		return ctx, abort, w
	}
	ctx, cancel := context.WithCancel(ctx)
	orig, out := abort, make(chan struct{})
	go func() {
		defer close(w.done)
		defer cancel()
		var once sync.Once
		closeAbort := func() { once.Do(func() { close(out) }) }
		var grace <-chan time.Time
		for {
			select {
			case <-orig:
				orig = nil
				closeAbort()
			case <-ended:
				ended = nil
				w.ended.Store(true)
				tr.ParentEnded()
				cancel()
				t := time.NewTimer(Grace())
				defer t.Stop()
				grace = t.C
			case <-grace:
				grace = nil
				closeAbort()
			case <-w.stop:
				select {
				case <-ended: // it ended as the plan did: still say so
					w.ended.Store(true)
					tr.ParentEnded()
				default:
				}
				return
			}
		}
	}()
	return ctx, out, w
}

// Close stops the watch and reports whether the parent ended: then the
// run writes no session_end (spawner_ended closes its trace instead).
func (w *ParentWatch) Close() bool {
	select {
	case <-w.stop:
	default:
		close(w.stop)
	}
	<-w.done
	return w.ended.Load()
}
