package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/planc/planc/host/session"
	"github.com/planc/planc/internal/sessionfmt"
	"github.com/planc/planc/internal/termtext"
	"github.com/planc/planc/tracefile"
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
	traceNotes(e, tracefile.SkippedLines(s))
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
		if err := copyFile(out, l.File(at)); err != nil {
			return keptReadFailed(e, err)
		}
		return exitOK
	}
	w := &lastByteWriter{w: out, last: '\n'}
	for i := range l.Attempts {
		at := &l.Attempts[i]
		if w.last != '\n' {
			io.WriteString(w, "\n")
		}
		if i > 0 {
			io.WriteString(w, "\n")
		}
		io.WriteString(w, at.Heading(step)+"\n")
		if at.Kept {
			if err := copyFile(w, l.File(at)); err != nil {
				return keptReadFailed(e, err)
			}
		}
	}
	if w.last != '\n' {
		io.WriteString(w, "\n")
	}
	if w.err != nil {
		return e.writeFailed(w.err)
	}
	return exitOK
}

// keptReadFailed reports a kept file that could not be read or written
// out whole.
func keptReadFailed(e *env, err error) int {
	if we, ok := errors.AsType[*writeError](err); ok {
		return e.writeFailed(we.err)
	}
	fmt.Fprintf(e.stderr, "planc trace: %v\n", err)
	return exitUsage
}

// writeError is a failed write to standard output, told apart from a
// failed read of the kept file.
type writeError struct{ err error }

func (e *writeError) Error() string { return e.err.Error() }

// copyFile writes the file at path to w.
func copyFile(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		k, rerr := f.Read(buf)
		if k > 0 {
			if _, err := w.Write(buf[:k]); err != nil {
				return &writeError{err}
			}
		}
		if rerr == io.EOF {
			return nil
		}
		if rerr != nil {
			return rerr
		}
	}
}

// lastByteWriter remembers the last byte written through it, and the
// first error (after which it writes nothing).
type lastByteWriter struct {
	w    io.Writer
	last byte
	err  error
}

func (w *lastByteWriter) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	k, err := w.w.Write(p)
	if k > 0 {
		w.last = p[k-1]
	}
	w.err = err
	return k, err
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
	list, err := tracefile.ListSessions(home.dir)
	if err != nil {
		fmt.Fprintf(e.stderr, "planc trace: %v\n", err)
		return exitUsage
	}
	// An unfinished plan whose lock is held is running now; one whose
	// lock nobody holds was left by a planc that died (S27).
	for i := range list {
		for j := range list[i].Plans {
			p := &list[i].Plans[j]
			if p.Outcome == tracefile.OutcomeUnfinished && p.Plan != nil {
				held, err := session.PlanHeld(list[i].Dir, *p.Plan)
				switch {
				case err != nil:
					fmt.Fprintf(e.stderr, "planc trace: note: cannot tell whether plan %d of %s is running (%v); it is listed as unfinished\n", *p.Plan, list[i].Session, err)
				case held:
					p.Outcome = tracefile.OutcomeRunning
				}
			}
		}
	}
	var out bytes.Buffer
	if a.json {
		err = tracefile.WriteListJSON(&out, list)
	} else {
		err = tracefile.WriteList(&out, list)
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
