package traceview

import (
	"cmp"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/planc/planc/internal/sessionfmt"
	"github.com/planc/planc/tracefile"
)

// stepsHeader is the header row of `planc trace steps`.
var stepsHeader = []string{"PLAN", "STEP", "ATTEMPT", "STATUS", "DURATION", "ERROR"}

// StepRows returns `planc trace steps`'s rows for s, header first: one row
// per attempt of every plan in s's own trace (not its delegations'), plans
// in the order they started, attempts in the order they were first seen.
func StepRows(s *tracefile.Session) [][]string {
	rows := [][]string{stepsHeader}
	for _, p := range s.Plans {
		for _, a := range p.Attempts {
			rows = append(rows, append([]string{p.Label}, s.AttemptRow(p, a)...))
		}
	}
	return rows
}

// WriteSteps writes `planc trace steps`: StepRows as aligned columns. The
// session's notes are not written; the caller shows them.
func WriteSteps(w io.Writer, s *tracefile.Session) error {
	_, err := io.WriteString(w, table("", StepRows(s)))
	return err
}

// WriteShow writes `planc trace show`: the session, its plans and their
// steps, its cancelled tasks, its delegations each followed by the child
// session it left (recursively, indented), and the notes met on the way,
// but for the notes about skipped lines (Note.Skipped): the caller shows
// those, SkippedLines gives them for the whole tree.
func WriteShow(w io.Writer, s *tracefile.Session) error {
	var b strings.Builder
	show(&b, s, "", "")
	_, err := io.WriteString(w, b.String())
	return err
}

// show writes session s at indent; where is how it was reached ("" at the
// top, delegations/<id> below).
func show(b *strings.Builder, s *tracefile.Session, indent, where string) {
	id := s.ID
	if id == "" {
		id = "(unknown id)"
	}
	fmt.Fprintf(b, "%ssession %s", indent, tracefile.Clean(id))
	if where != "" {
		fmt.Fprintf(b, " (%s)", tracefile.Clean(where))
	}
	b.WriteByte('\n')
	in := indent + "  "
	var head [][]string
	if s.Capsule != "" {
		head = append(head, []string{"capsule", strings.TrimSpace(s.Capsule + " " + s.Version)})
	}
	if s.Started != "" {
		head = append(head, []string{"started", s.Started})
	}
	if s.SpawnedBy != "" {
		head = append(head, []string{"spawned by", s.SpawnedBy + ", delegation " + s.DelegationID})
	}
	head = append(head, []string{"exit", exitText(s)})
	if len(s.Runs) > 1 {
		var st []string
		for _, r := range s.Runs {
			st = append(st, cmp.Or(r.ExitStatus, "?"))
		}
		head = append(head, []string{"runs", fmt.Sprintf("%d (%s)", len(s.Runs), strings.Join(st, ", "))})
	}
	b.WriteString(table(in, head))

	if len(s.Plans) == 0 {
		fmt.Fprintf(b, "\n%splans: none\n", in)
	}
	for _, p := range s.Plans {
		b.WriteByte('\n')
		showPlan(b, s, p, in)
	}
	if len(s.Tasks) > 0 {
		fmt.Fprintf(b, "\n%stasks\n", in)
		for _, t := range s.Tasks {
			fmt.Fprintf(b, "%s  %s\n", in, taskText(t))
		}
	}
	if len(s.Delegations) == 0 {
		fmt.Fprintf(b, "\n%sDelegations: none\n", in)
	} else {
		fmt.Fprintf(b, "\n%sDelegations\n", in)
		for i, d := range s.Delegations {
			if i > 0 {
				b.WriteByte('\n')
			}
			showDelegation(b, d, in+"  ")
		}
	}
	var notes []tracefile.Note
	for _, n := range s.Notes {
		if !n.Skipped {
			notes = append(notes, n)
		}
	}
	if len(notes) > 0 {
		fmt.Fprintf(b, "\n%snotes\n", in)
		for _, n := range notes {
			fmt.Fprintf(b, "%s  %s\n", in, n)
		}
	}
}

// SkippedLines returns the notes about trace lines left out, wholly or in
// part (Note.Skipped: torn, not JSON, too long), of s and of every child
// session below it, each as "TRACE: line N: TEXT" naming its trace file:
// what `planc trace` writes on standard error, one line each.
func SkippedLines(s *tracefile.Session) []string {
	var out []string
	var walk func(s *tracefile.Session, depth int)
	walk = func(s *tracefile.Session, depth int) {
		file := traceFile(s)
		for _, n := range s.Notes {
			if n.Skipped {
				out = append(out, tracefile.Clean(file)+": "+n.String())
			}
		}
		for _, d := range s.Delegations {
			if d.Child != nil && depth < tracefile.MaxDepth {
				walk(d.Child, depth+1)
			}
		}
	}
	walk(s, 0)
	return out
}

// exitText describes how the session ended.
func exitText(s *tracefile.Session) string {
	if st, ok := s.ExitStatus(); ok {
		return cmp.Or(st, "?")
	}
	if s.SpawnerEnded {
		return "none: its spawner ended (spawner_ended), so it stopped without session_end"
	}
	if len(s.Runs) == 0 {
		return "unknown: the trace has no session_start"
	}
	return "none yet: no session_end (still running, or its runtime died)"
}

// showPlan writes one plan: a summary line and its attempts.
func showPlan(b *strings.Builder, s *tracefile.Session, p *tracefile.Plan, in string) {
	fmt.Fprintf(b, "%splan %s", in, tracefile.Clean(p.Label))
	if p.File != "" {
		fmt.Fprintf(b, " (%s)", tracefile.Clean(p.File))
	}
	b.WriteString(": ")
	switch {
	case !p.Ended:
		b.WriteString("no plan_end (still running, or its runtime died)")
		if p.Started {
			fmt.Fprintf(b, "; %s", steps(p))
		}
	default:
		b.WriteString(tracefile.Clean(cmp.Or(p.Outcome, "?")))
		if p.FailedStep != "" {
			fmt.Fprintf(b, ", stopped by step %s", tracefile.Clean(strconv.Quote(p.FailedStep)))
		}
		fmt.Fprintf(b, "; %s, %d succeeded, %d failed, %d skipped", steps(p), p.Succeeded, p.Failed, p.Skipped)
		if n := p.NotRun(); n > 0 {
			fmt.Fprintf(b, ", %d not run", n)
		}
	}
	b.WriteByte('\n')
	if len(p.Attempts) > 0 {
		rows := [][]string{stepsHeader[1:]}
		for _, a := range p.Attempts {
			rows = append(rows, s.AttemptRow(p, a))
		}
		b.WriteString(table(in+"  ", rows))
	}
	for _, d := range p.Denials {
		fmt.Fprintf(b, "%s  refused: %s\n", in, tracefile.Clean(denialText(d)))
	}
}

// denialText describes a protected_path_denied or call_denied line.
func denialText(e tracefile.Event) string {
	if e.Event == sessionfmt.EventProtectedPathDenied {
		return fmt.Sprintf("step %s would write under the read-only path %s (protected_path_denied)", strconv.Quote(e.StepID), strconv.Quote(e.Path))
	}
	return fmt.Sprintf("step %s matched hook %d (%s), whose commit_policy is deny (call_denied)", strconv.Quote(e.StepID), e.Hook, e.On)
}

// taskText describes a cancelled task.
func taskText(t *tracefile.Task) string {
	s := "task " + strconv.Quote(t.ID)
	if t.Canceled {
		s += ": canceled"
		if len(t.DelegationIDs) > 0 {
			s += ", ending delegations " + strings.Join(t.DelegationIDs, ", ")
		}
	}
	if t.Ended {
		s += "; ended " + cmp.Or(t.Outcome, "?")
	} else {
		s += "; no task_end"
	}
	return tracefile.Clean(s)
}

// showDelegation writes one delegation and the child session it left.
func showDelegation(b *strings.Builder, d *tracefile.Delegation, in string) {
	line := "delegation " + d.ID + ":"
	var parts []string
	if d.Capsule != "" {
		parts = append(parts, "capsule "+strings.TrimSpace(d.Capsule+" "+d.Version))
	}
	if d.StepID != "" || d.PlanID != "" {
		parts = append(parts, fmt.Sprintf("step %s of plan %s", strconv.Quote(d.StepID), strconv.Quote(d.PlanID)))
	}
	if d.PID > 0 {
		parts = append(parts, fmt.Sprintf("pid %d", d.PID))
	}
	if len(parts) > 0 {
		line += " " + strings.Join(parts, ", ") + ";"
	}
	switch {
	case d.Ended:
		line += " " + cmp.Or(d.Outcome, "?")
	case d.InTrace:
		line += " no delegation line yet (still running, or its parent died)"
	default:
		line += " not in the trace"
	}
	fmt.Fprintf(b, "%s%s\n", in, tracefile.Clean(line))
	if d.Reason != "" {
		fmt.Fprintf(b, "%s  reason: %s\n", in, tracefile.Clean(d.Reason))
	}
	if c := d.Completion; c != nil {
		fmt.Fprintf(b, "%s  completion: %s\n", in, tracefile.Clean(fmt.Sprintf("%s, reported by %s: %s", cmp.Or(c.Status, "?"), cmp.Or(c.ReportedBy, "?"), cmp.Or(c.Detail, "-"))))
	}
	if d.Note != "" {
		fmt.Fprintf(b, "%s  note: %s\n", in, tracefile.Clean(d.Note))
	}
	if d.Child != nil {
		show(b, d.Child, in+"  ", sessionfmt.DelegationsDir+"/"+d.ID)
	}
}

// steps returns how many steps p declares: "1 step", "N steps", or "?
// steps" when the trace lacks its plan_start.
func steps(p *tracefile.Plan) string {
	switch {
	case !p.Started:
		return "? steps"
	case p.StepCount == 1:
		return "1 step"
	}
	return strconv.Itoa(p.StepCount) + " steps"
}

// traceFile is the trace file s was read from.
func traceFile(s *tracefile.Session) string {
	if s.Path == s.Dir {
		return filepath.Join(s.Dir, sessionfmt.TraceFile)
	}
	return s.Path
}
