// Package interrupt wires SIGINT and SIGTERM to a piece of work as planc
// run and planc serve need them: the first signal cancels the work's
// context (the cancel of docs/plans.md, "Cancel"; S22), a second forces an
// end at once, and work that still has not returned a grace period after
// that is given up on.
package interrupt

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// Handler says what the signals do besides cancelling the work's context.
type Handler struct {
	// Abort, when not nil, is closed at the second signal: every process
	// of the work is to end at once.
	Abort chan struct{}
	// First, when not nil, is called at the first signal, to acknowledge
	// it at once.
	First func()
	// Stuck, when not nil, is called when the work has not returned Grace
	// after the second signal; it typically exits the process.
	Stuck func()
	// Grace is how long the work has to return after the second signal.
	Grace time.Duration
}

// Run calls fn with SIGINT and SIGTERM wired to it as h says, and returns
// what fn returns. The signals are planc's own only while fn runs.
func Run[T any](h Handler, fn func(ctx context.Context) T) T {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	return watch(sigs, h, fn)
}

// watch is Run with the signals coming from sigs.
func watch[T any](sigs <-chan os.Signal, h Handler, fn func(ctx context.Context) T) T {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-sigs:
			cancel()
			if h.First != nil {
				h.First()
			}
		case <-done:
			return
		}
		select {
		case <-sigs:
			if h.Abort != nil {
				close(h.Abort)
			}
		case <-done:
			return
		}
		t := time.NewTimer(h.Grace)
		defer t.Stop()
		select {
		case <-t.C:
			if h.Stuck != nil {
				h.Stuck()
			}
		case <-done:
		}
	}()
	return fn(ctx)
}
