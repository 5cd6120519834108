package traceview

import (
	"fmt"
	"io"

	"github.com/planc/planc/tracefile"
)

// Open reads the session at path for view: steps shows the session's own
// plans only (tracefile.OpenTop: its delegations are not read), show the
// whole tree (tracefile.Open).
func Open(path, view string) (*tracefile.Session, error) {
	if view == "steps" {
		return tracefile.OpenTop(path)
	}
	return tracefile.Open(path)
}

// Render writes view "steps" (WriteSteps, WriteStepsJSON) or "show"
// (WriteShow, WriteShowJSON) of s, as JSON with asJSON.
func Render(w io.Writer, s *tracefile.Session, view string, asJSON bool) error {
	switch {
	case view == "steps" && asJSON:
		return WriteStepsJSON(w, s)
	case view == "steps":
		return WriteSteps(w, s)
	case asJSON:
		return WriteShowJSON(w, s)
	}
	return WriteShow(w, s)
}

// Notes are the notes of the session view read: the notes of every line
// skipped, and for steps the session's own notes too.
func Notes(s *tracefile.Session, view string) []string {
	if view != "steps" {
		return SkippedLines(s)
	}
	// Every note of the session's own trace, naming the file as
	// SkippedLines does.
	var notes []string
	for _, n := range s.Notes {
		notes = append(notes, tracefile.Clean(traceFile(s))+": "+n.String())
	}
	return notes
}

// RenderList writes the list of sessions as text (WriteList) or, with
// asJSON, as JSON (WriteListJSON).
func RenderList(w io.Writer, list []SessionJSON, asJSON bool) error {
	if asJSON {
		return WriteListJSON(w, list)
	}
	return WriteList(w, list)
}

// WritePicture writes plan n of s as view "graph" (WriteGraph, in format
// dot or mermaid) or "html" (WriteHTML).
func WritePicture(w io.Writer, s *tracefile.Session, n int, view, format string) error {
	if view == "graph" {
		return WriteGraph(w, s, n, format)
	}
	return WriteHTML(w, s, n)
}

// WriteLogs writes the kept output of step of plan n: attempt k's alone,
// exactly as kept, when k > 0; else every dispatched attempt, each under
// a heading. An attempt that is not there or not kept is an error; a
// *tracefile.WriteError is w's.
func WriteLogs(w io.Writer, l *tracefile.StepLogs, step string, n, k int) error {
	if k == 0 {
		return l.WriteAll(w, step)
	}
	at, err := l.Attempt(k)
	if err == nil && !at.Kept {
		err = fmt.Errorf("attempt %d of step %q of plan %d %s", at.Attempt, step, n, at.Missing())
	}
	if err != nil {
		return err
	}
	return l.WriteAttempt(w, at)
}
