package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/planc/planc/internal/sessionfmt"
)

// PlanLock is the lock a planc holds on a plan of a session while it runs
// or redrives it (S27): one planc drives a plan at a time. It is a lock
// the kernel releases when its holder dies (flock on Unix), on the file
// locks/plan-<n>.lock, which holds the holder's pid.
type PlanLock struct {
	f *os.File
}

// LockedError is the refusal of a lock another planc holds.
type LockedError struct {
	// N is the plan's number; Path the lock file.
	N    int
	Path string
	// Pid is the holder's pid, as it wrote it in the lock file; 0 when it
	// could not be read.
	Pid int
}

// Error says who holds the lock.
func (e *LockedError) Error() string {
	who := "another planc"
	if e.Pid > 0 {
		who = "planc pid " + strconv.Itoa(e.Pid)
	}
	return fmt.Sprintf("plan %d is running: %s holds its lock (%s); wait for it to end, or end it and resume then", e.N, who, e.Path)
}

// LockPlan takes the lock of plan n and writes this process's pid into
// it. When another planc holds it, LockPlan waits for it when wait is set
// (a first run, whose plan file is new: only a --resume refused at once
// can hold it) and fails with a *LockedError otherwise. Unlock releases
// it; so does the death of this process.
func (s *Session) LockPlan(n int, wait bool) (*PlanLock, error) {
	path := filepath.Join(s.Dir, filepath.FromSlash(sessionfmt.LockFile(n)))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("lock plan %d: %w", n, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock plan %d: %w", n, err)
	}
	held, err := lockFile(f, wait)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock plan %d: %w", n, err)
	}
	if held {
		f.Close()
		return nil, &LockedError{N: n, Path: path, Pid: holder(path)}
	}
	pid := []byte(strconv.Itoa(os.Getpid()) + "\n")
	if err := f.Truncate(0); err == nil {
		f.WriteAt(pid, 0) // only a message reads it
	}
	return &PlanLock{f: f}, nil
}

// holder reads the pid a lock's holder wrote into it, giving a holder
// that has just taken it a moment to write it; 0 when there is none.
func holder(path string) int {
	for range 20 {
		b, _ := os.ReadFile(path)
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
			return pid
		}
		time.Sleep(5 * time.Millisecond)
	}
	return 0
}

// Unlock releases the lock; the file stays (removing it would let two
// planc lock two different files of one name).
func (l *PlanLock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close() // closing the last descriptor releases the lock
	l.f = nil
	return err
}

// PlanHeld reports whether a planc holds the lock of plan n of the session
// in dir now: whether a plan whose trace has a plan_start and no plan_end
// is still running, rather than left by a planc that died (S27). It takes
// the lock for an instant to tell, so a `planc run --resume` of that very
// plan at that instant may be refused once; it creates no file. A plan
// with no lock file is not held.
func PlanHeld(dir string, n int) (bool, error) {
	f, err := os.Open(filepath.Join(dir, filepath.FromSlash(sessionfmt.LockFile(n))))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close() // releases the lock if this took it
	return lockFile(f, false)
}
