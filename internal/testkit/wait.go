package testkit

import (
	"bytes"
	"sync"
	"testing"
	"time"
)

// Patience is how long Eventually waits by default: generous, since the
// machines the suite runs on may be loaded many times over. A wait ends
// as soon as its event happens, so a long bound costs nothing when all is
// well.
const Patience = 60 * time.Second

// Eventually waits until cond holds, polling every few milliseconds, for
// up to wait (Patience when 0); the test fails with what (and cond's last
// word on it) when it never holds. It is for waiting on an event another
// process brings about — a trace line, a marker file, an exit — never for
// a fixed time.
func Eventually(t testing.TB, wait time.Duration, what string, cond func() bool) {
	t.Helper()
	if !Within(wait, cond) {
		t.Fatalf("waited %v in vain for %s", orPatience(wait), what)
	}
}

// Within reports whether cond came to hold within wait (Patience when 0),
// polling as Eventually does, for a test that says more when it does not.
func Within(wait time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(orPatience(wait))
	for pause := time.Millisecond; ; pause = min(2*pause, 50*time.Millisecond) {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pause)
	}
}

func orPatience(d time.Duration) time.Duration {
	if d <= 0 {
		return Patience
	}
	return d
}

// Buffer is a bytes.Buffer that a process may write (as its Stdout or
// Stderr) while the test reads it.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String returns what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// WithinEvery is Within polling every pause, never slower: for a test
// that must catch a short-lived state (a process between two steps of its
// start-up) as soon as it comes.
func WithinEvery(wait, pause time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(orPatience(wait))
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pause)
	}
}
