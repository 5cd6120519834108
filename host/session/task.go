package session

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/planc/planc/internal/sessionfmt"
)

// ExitCode is planc's exit status for one run (`planc run`, a
// sub-capsule's `planc __capsule`).
type ExitCode int

// The exit statuses of a run.
const (
	ExitCompleted ExitCode = 0 // the plan completed
	ExitFailed    ExitCode = 1 // a step stopped it
	ExitRefused   ExitCode = 2 // refused before any step ran, or a usage error
	ExitCanceled  ExitCode = 3 // it was cancelled
)

// EndStatus is the session_end exit_status of a run that ended with c.
func (c ExitCode) EndStatus() EndStatus {
	switch c {
	case ExitCompleted:
		return EndOK
	case ExitCanceled:
		return EndCanceled
	}
	return EndFailed
}

// Task is one plan running in a session: what every part of the host
// that acts for the plan shares. A `planc run` is one submit-plan call,
// one task, so the task and its plan file share their number.
type Task struct {
	// Session is the session directory; Trace its open trace.
	Session *Session
	Trace   *Trace
	// Plan is the plan file the task runs.
	Plan *PlanFile
	// WorkDir is the absolute directory steps run in and tool paths
	// start from.
	WorkDir string

	keptOnce sync.Once
	kept     *kept // the kept outputs (Keep), once the first is kept
}

// TaskID names the task running plan n of a session in task_canceled and
// task_end: "plan-<n>".
func TaskID(n int) string { return "plan-" + strconv.Itoa(n) }

// ID is the task's name, TaskID of its plan's number.
func (t *Task) ID() string { return TaskID(t.Plan.N) }

// NotesPath is the session's notes.md, which the notes tool appends to.
func (t *Task) NotesPath() string { return filepath.Join(t.Session.Dir, sessionfmt.NotesFile) }

// PlansDir is the session's plans/, absolute: no step may write under it.
func (t *Task) PlansDir() string {
	dir := filepath.Join(t.Session.Dir, sessionfmt.PlansDir)
	if a, err := filepath.Abs(dir); err == nil {
		return a
	}
	return filepath.Clean(dir)
}

// Close closes what the task keeps open: the plan's output index.
func (t *Task) Close() {
	t.kept.close()
}

// AbsDir returns dir ("" for the current directory) as an absolute path
// of an existing directory: a run's working directory.
func AbsDir(dir string) (string, error) {
	if dir == "" {
		return os.Getwd()
	}
	a, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(a); err != nil {
		return "", err
	} else if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", a)
	}
	return a, nil
}

// AbsPath is p made absolute against base (itself made absolute against
// the current directory), cleaned: how the runtime resolves a manifest's
// relative paths, a read_only entry or a protected path.
func AbsPath(base, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}
