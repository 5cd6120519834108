package session

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/planc/planc/internal/sessionfmt"
)

// TestLockPlan: a plan's lock is held by one holder at a time; a second
// taker is refused naming the holder's pid, or waits for it; Unlock
// releases it; each plan has a lock of its own.
func TestLockPlan(t *testing.T) {
	s, err := Create(t.TempDir(), sessionfmt.SessionInfo{Capsule: "local/planc"})
	if err != nil {
		t.Fatal(err)
	}
	l1, err := s.LockPlan(3, false)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(s.Dir, "locks", "plan-3.lock")); strings.TrimSpace(string(b)) != strconv.Itoa(os.Getpid()) {
		t.Errorf("lock file holds %q, want this pid", b)
	}
	_, err = s.LockPlan(3, false)
	var le *LockedError
	if !errors.As(err, &le) || le.Pid != os.Getpid() || le.N != 3 {
		t.Fatalf("second lock: %v", err)
	}
	if !strings.Contains(err.Error(), "plan 3 is running: planc pid "+strconv.Itoa(os.Getpid())+" holds its lock") {
		t.Errorf("message: %v", err)
	}
	other, err := s.LockPlan(4, false)
	if err != nil {
		t.Fatalf("plan 4's lock: %v", err)
	}
	other.Unlock()

	got := make(chan *PlanLock)
	go func() {
		l, err := s.LockPlan(3, true)
		if err != nil {
			t.Error(err)
		}
		got <- l
	}()
	select {
	case <-got:
		t.Fatal("a waiting taker got the lock while it was held")
	case <-time.After(50 * time.Millisecond):
	}
	if err := l1.Unlock(); err != nil {
		t.Fatal(err)
	}
	l2 := <-got
	if l2 == nil {
		t.Fatal("the waiting taker got no lock")
	}
	if err := l2.Unlock(); err != nil {
		t.Fatal(err)
	}
	if err := l2.Unlock(); err != nil {
		t.Errorf("a second Unlock: %v", err)
	}
}
