package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"

	"github.com/planc/planc/host/session"
	"github.com/planc/planc/internal/sessionfmt"
	"github.com/planc/planc/internal/termtext"
	"github.com/planc/planc/tracefile"
	"github.com/planc/planc/tracefile/traceview"
)

// openTraceSession opens the session pos names (the newest one when it
// names none), without its delegations, and picks the plan: a.plan, or
// the session's last.
func openTraceSession(e *env, a traceArgs, pos []string) (*tracefile.Session, int, int, bool) {
	path, status, ok := tracePath(e, pos)
	if !ok {
		return nil, 0, status, false
	}
	s, err := tracefile.OpenTop(path)
	if err != nil {
		fmt.Fprintf(e.stderr, "planc trace: %v\n", err)
		return nil, 0, exitUsage, false
	}
	traceNotes(e, traceview.SkippedLines(s))
	n := a.plan
	if n == 0 {
		last, ok := s.LastPlan()
		if !ok {
			fmt.Fprintf(e.stderr, "planc trace: session %q has started no plan (its trace has no plan_start)\n", s.ID)
			return nil, 0, exitUsage, false
		}
		n = last
	}
	return s, n, exitOK, true
}

// traceLogs implements planc trace logs [SESSION] STEP.
func traceLogs(e *env, c *command, a traceArgs) int {
	if len(a.pos) == 0 {
		return e.usageError(c, "name the step: planc trace logs [SESSION] STEP")
	}
	if len(a.pos) > 2 {
		return e.usageError(c, "give a session and a step at most: planc trace logs [SESSION] STEP")
	}
	step := a.pos[len(a.pos)-1]
	s, n, status, ok := openTraceSession(e, a, a.pos[:len(a.pos)-1])
	if !ok {
		return status
	}
	l, err := s.StepLogs(n, step, a.plan == 0)
	if err != nil {
		msg := err.Error()
		if fi, serr := os.Stat(step); len(a.pos) == 1 && serr == nil && (fi.IsDir() || fi.Name() == sessionfmt.TraceFile) {
			msg += fmt.Sprintf(" (%s is a path: to read that session, name the step after it)", step)
		}
		fmt.Fprintf(e.stderr, "planc trace: %s\n", msg)
		return exitUsage
	}
	out := termSafe(e.stdout)
	if sw, ok := out.(*termtext.SafeWriter); ok {
		defer sw.Flush()
	}
	if a.attempt > 0 {
		at, err := l.Attempt(a.attempt)
		if err == nil && !at.Kept {
			err = fmt.Errorf("attempt %d of step %q of plan %d %s", at.Attempt, step, n, at.Missing())
		}
		if err != nil {
			fmt.Fprintf(e.stderr, "planc trace: %v\n", err)
			return exitUsage
		}
		if err := l.WriteAttempt(out, at); err != nil {
			return keptReadFailed(e, err)
		}
		return exitOK
	}
	if err := l.WriteAll(out, step); err != nil {
		return keptReadFailed(e, err)
	}
	return exitOK
}

// keptReadFailed reports a kept file that could not be read or written
// out whole.
func keptReadFailed(e *env, err error) int {
	if we, ok := errors.AsType[*tracefile.WriteError](err); ok {
		return e.writeFailed(we.Err)
	}
	fmt.Fprintf(e.stderr, "planc trace: %v\n", err)
	return exitUsage
}

// traceReport implements planc trace report [SESSION].
func traceReport(e *env, c *command, a traceArgs) int {
	if len(a.pos) > 1 {
		return e.usageError(c, "give at most one trace file or session directory")
	}
	s, n, status, ok := openTraceSession(e, a, a.pos)
	if !ok {
		return status
	}
	report, note, err := s.Report(n)
	if err != nil {
		fmt.Fprintf(e.stderr, "planc trace: %v\n", err)
		return exitUsage
	}
	if note != "" {
		fmt.Fprintf(e.stderr, "planc trace: note: %s\n", note)
	}
	if _, err := e.stdout.Write(report); err != nil {
		return e.writeFailed(err)
	}
	return exitOK
}

// traceList implements planc trace list.
func traceList(e *env, c *command, a traceArgs) int {
	if len(a.pos) > 0 {
		return e.usageError(c, "planc trace list takes no arguments: it lists the project's sessions, under %s of the current directory or the nearest parent holding a .planc/", session.DefaultSessionsDir)
	}
	home := findTraceHome()
	list, err := traceview.ListSessions(home.dir)
	if err != nil {
		fmt.Fprintf(e.stderr, "planc trace: %v\n", err)
		return exitUsage
	}
	traceNotes(e, traceview.MarkRunning(list, session.PlanHeld))
	var out bytes.Buffer
	if a.json {
		err = traceview.WriteListJSON(&out, list)
	} else {
		err = traceview.WriteList(&out, list)
	}
	if err == nil {
		_, err = e.stdout.Write(out.Bytes())
	}
	if err != nil {
		return e.writeFailed(err)
	}
	if len(list) == 0 {
		fmt.Fprintf(e.stderr, "planc trace: no sessions under %s\n", home.where())
	}
	for _, s := range list {
		traceNotes(e, s.Notes())
	}
	return exitOK
}
