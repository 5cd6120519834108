// Package procexit says how a process ended in one wording for every
// process planc starts (shell steps, MCP servers, capsule commands, a
// capsule's Pod): "exit status 3", "killed by signal SIGKILL", or as a
// clause, "exited with status 3", "was killed by signal SIGKILL".
package procexit

import (
	"errors"
	"fmt"
	"os/exec"
	"syscall"
)

// Status is how a process ended: killed by Signal when it is not 0, else
// exited with Code.
type Status struct {
	Code   int
	Signal syscall.Signal
}

// String says it as a noun phrase: "exit status 3", "killed by signal
// SIGKILL".
func (s Status) String() string {
	if s.Signal != 0 {
		return "killed by signal " + SignalName(s.Signal)
	}
	return fmt.Sprintf("exit status %d", s.Code)
}

// Clause says it as a clause after the process's name: "exited with status
// 3", "was killed by signal SIGKILL".
func (s Status) Clause() string {
	if s.Signal != 0 {
		return "was killed by signal " + SignalName(s.Signal)
	}
	return fmt.Sprintf("exited with status %d", s.Code)
}

// Err is the Status as an error (String), nil for exit status 0.
func (s Status) Err() error {
	if s == (Status{}) {
		return nil
	}
	return errors.New(s.String())
}

// FromWait returns the Status of exec.Cmd.Wait's error: exit status 0 for
// nil; ok is false when err is not an *exec.ExitError of a process that
// exited or was killed by a signal.
func FromWait(err error) (s Status, ok bool) {
	if err == nil {
		return Status{}, true
	}
	ee, ok := errors.AsType[*exec.ExitError](err)
	if !ok {
		return Status{}, false
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return Status{Signal: ws.Signal()}, true
	}
	if ee.Exited() {
		return Status{Code: ee.ExitCode()}, true
	}
	return Status{}, false
}

// WaitError rewords Wait's error as Status.Err says it; another error is
// returned as it is.
func WaitError(err error) error {
	if s, ok := FromWait(err); ok {
		return s.Err()
	}
	return err
}

// WaitClause says how Wait's error ended a command, as Status.Clause says
// it; "failed: ERR" for an error that says no end.
func WaitClause(err error) string {
	if s, ok := FromWait(err); ok {
		return s.Clause()
	}
	return "failed: " + err.Error()
}
