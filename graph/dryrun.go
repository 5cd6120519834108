package graph

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/diag"
	"github.com/planc/planc/ir"
)

// maxTargetPad is the widest kind-and-target column, in terminal cells,
// that the dry run pads to: a step with a longer command line is followed
// by its notes two spaces later instead of pushing every row to its width.
const maxTargetPad = 40

// WriteSchedule writes the dry run (planc run --dry-run) of the
// schedule s that Simulate gave for p with maxParallel, a stable text
// meant for people and golden files:
//
//	dry run of plan "ID": N steps in T ticks; nothing runs and no session is written
//	assumed: every condition holds and every step succeeds at its first attempt, in one tick[; at most N shell or capsule steps at once]
//	(blank line)
//	tick 1
//	  "ID"  KIND "TARGET"  NOTE; NOTE; …
//	tick 2
//	  …
//	(blank line)
//	tool lane: "ID" → "ID" → …    (or: tool lane: empty (no tool steps))
//
// Ticks count from 1; the steps of one tick start together, in plan order.
// A step's notes, each present only when it applies, are: after (its
// dependencies), if (its condition), on_error (when not fail), retries
// (when above 0), and how many ticks it waited, once ready, for the tool
// lane or for a --max-parallel slot. Ids and targets are Go-quoted;
// conditions are shown as their canonical text with control characters
// escaped. The id and target columns are padded to line up, the target
// column to at most maxTargetPad cells. A plan with no steps prints only
// its first line, saying it has no steps.
func WriteSchedule(w io.Writer, p *ir.Program, s *Schedule, maxParallel int) {
	if len(p.Steps) == 0 {
		fmt.Fprintf(w, "dry run of plan %s: no steps, so it completes at once; nothing runs and no session is written\n", strconv.Quote(p.ID))
		return
	}
	fmt.Fprintf(w, "dry run of plan %s: %s in %s; nothing runs and no session is written\n",
		strconv.Quote(p.ID), ast.Plural(len(p.Steps), "step"), ast.Plural(len(s.Ticks), "tick"))
	fmt.Fprint(w, "assumed: every condition holds and every step succeeds at its first attempt, in one tick")
	if maxParallel > 0 {
		fmt.Fprintf(w, "; at most %s at once", ast.Plural(maxParallel, "shell or capsule step"))
	}
	fmt.Fprint(w, "\n\n")

	ids := make([]string, len(p.Steps))
	targets := make([]string, len(p.Steps))
	idWidth, targetWidth := 0, 0
	for i := range p.Steps {
		st := &p.Steps[i]
		ids[i] = strconv.Quote(st.ID)
		targets[i] = st.Kind.String() + " " + strconv.Quote(st.Target)
		idWidth = max(idWidth, diag.Width(ids[i]))
		if c := diag.Width(targets[i]); c <= maxTargetPad {
			targetWidth = max(targetWidth, c)
		}
	}
	for t, tick := range s.Ticks {
		fmt.Fprintf(w, "tick %d\n", t+1)
		for _, i := range tick {
			line := "  " + pad(ids[i], idWidth) + "  " + targets[i]
			if notes := stepNotes(p, s, i); len(notes) > 0 {
				line = "  " + pad(ids[i], idWidth) + "  " + pad(targets[i], targetWidth) + "  " + strings.Join(notes, "; ")
			}
			fmt.Fprintln(w, line)
		}
	}

	fmt.Fprint(w, "\ntool lane: ")
	if len(s.ToolLane) == 0 {
		fmt.Fprintln(w, "empty (no tool steps)")
		return
	}
	for k, i := range s.ToolLane {
		if k > 0 {
			fmt.Fprint(w, " → ")
		}
		fmt.Fprint(w, ids[i])
	}
	fmt.Fprintln(w)
}

// stepNotes returns the notes of step i's line (see WriteSchedule).
func stepNotes(p *ir.Program, s *Schedule, i int32) []string {
	st := &p.Steps[i]
	var notes []string
	if len(st.Deps) > 0 {
		deps := make([]string, len(st.Deps))
		for k, d := range st.Deps {
			deps[k] = strconv.Quote(p.Steps[d].ID)
		}
		notes = append(notes, "after "+strings.Join(deps, ", "))
	}
	if st.Cond != nil {
		notes = append(notes, "if "+escapeControls(st.Cond.Source))
	}
	if st.OnError != ir.OnErrorFail {
		notes = append(notes, "on_error "+st.OnError.String())
	}
	if st.Retries > 0 {
		notes = append(notes, "retries "+strconv.Itoa(st.Retries))
	}
	ready := 0 // the tick its last dependency has settled by
	for _, d := range st.Deps {
		ready = max(ready, s.Tick[d]+1)
	}
	if wait := s.Tick[i] - ready; wait > 0 {
		what := "a --max-parallel slot"
		if st.Kind == ir.KindTool {
			what = "the tool lane"
		}
		notes = append(notes, fmt.Sprintf("waits %s for %s", ast.Plural(wait, "tick"), what))
	}
	return notes
}

// pad right-pads s with spaces to width terminal cells.
func pad(s string, width int) string {
	if c := diag.Width(s); c < width {
		return s + strings.Repeat(" ", width-c)
	}
	return s
}

// escapeControls replaces the characters that must not reach a terminal as
// they are (unprintable: controls and bidirectional marks) with their Go
// escapes, so a condition can never break a line or reorder it.
func escapeControls(s string) string {
	var b strings.Builder
	for _, r := range s {
		if diag.Unprintable(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// DryRun simulates the VM's schedule of p (Simulate, semantics S17) with
// at most maxParallel shell and capsule steps at once (0: no cap) and
// writes it as WriteSchedule does: planc run --dry-run.
func DryRun(w io.Writer, p *ir.Program, maxParallel int) error {
	s, err := Simulate(p, Options{MaxParallel: maxParallel})
	if err != nil {
		return err
	}
	WriteSchedule(w, p, s, maxParallel)
	return nil
}

// Write writes p's graph in format: "dot" (WriteDOT) or "mermaid"
// (WriteMermaid).
func Write(w io.Writer, p *ir.Program, format string) error {
	switch format {
	case "dot":
		return WriteDOT(w, p)
	case "mermaid":
		return WriteMermaid(w, p)
	}
	return fmt.Errorf("unknown graph format %q; want dot or mermaid", format)
}
