package interrupt

import (
	"context"
	"os"
	"testing"
	"time"
)

// TestFirstCancelsSecondAborts: the first signal cancels the context and
// is acknowledged; the second closes Abort.
func TestFirstCancelsSecondAborts(t *testing.T) {
	sigs := make(chan os.Signal, 2)
	abort := make(chan struct{})
	first := make(chan struct{})
	h := Handler{Abort: abort, Grace: time.Hour, First: func() { close(first) }}
	got := watch(sigs, h, func(ctx context.Context) string {
		sigs <- os.Interrupt
		<-ctx.Done()
		<-first
		select {
		case <-abort:
			return "aborted before the second signal"
		default:
		}
		sigs <- os.Interrupt
		<-abort
		return "ok"
	})
	if got != "ok" {
		t.Fatal(got)
	}
}

// TestStuck: work that does not return Grace after the second signal is
// given up on with Stuck.
func TestStuck(t *testing.T) {
	sigs := make(chan os.Signal, 2)
	stuck := make(chan struct{})
	h := Handler{Grace: time.Millisecond, Stuck: func() { close(stuck) }}
	watch(sigs, h, func(ctx context.Context) int {
		sigs <- os.Interrupt
		<-ctx.Done()
		sigs <- os.Interrupt
		<-stuck // the work winds down only once given up on
		return 0
	})
}

// TestNoSignal: without a signal the work runs with a live context and
// nothing is called.
func TestNoSignal(t *testing.T) {
	h := Handler{First: func() { t.Error("First called") }, Stuck: func() { t.Error("Stuck called") }}
	err := Run(h, func(ctx context.Context) error { return ctx.Err() })
	if err != nil {
		t.Errorf("the work's context was done: %v", err)
	}
}
