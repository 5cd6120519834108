package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// withSignals calls fn with SIGINT and SIGTERM wired to it, as planc run
// and planc serve need them: the first signal cancels fn's context (the
// cancel of docs/plans.md, "Cancel"; S22), a second closes abort (every process
// of the plans ended at once); if fn has not returned abortGrace after that,
// planc exits 3 with one line on standard error: "CMD: ended at once; WHAT did
// not wind down in time". The first signal is acknowledged at once with one
// line, through notice (a view's note) or, when notice is nil, on standard
// error: "CMD: cancelling WHAT… Ctrl-C again to kill at once".
func withSignals[T any](e *env, abort chan struct{}, cmd, what string, notice func(string), fn func(ctx context.Context) T) T {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-sigs:
			cancel()
			msg := "cancelling " + what + "… Ctrl-C again to kill at once"
			if notice != nil {
				notice(msg)
			} else {
				fmt.Fprintf(e.stderr, "%s: %s\n", cmd, msg)
			}
		case <-done:
			return
		}
		select {
		case <-sigs:
			close(abort)
		case <-done:
			return
		}
		select {
		case <-time.After(abortGrace):
			fmt.Fprintf(e.stderr, "%s: ended at once; %s did not wind down in time\n", cmd, what)
			os.Exit(exitCanceled)
		case <-done:
		}
	}()
	return fn(ctx)
}
