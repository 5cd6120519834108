package traceview

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/planc/planc/check"
	"github.com/planc/planc/graph"
	"github.com/planc/planc/internal/regfile"
	"github.com/planc/planc/internal/sessionfmt"
	"github.com/planc/planc/ir"
	"github.com/planc/planc/tracefile"
)

// Timeline is one plan of a session as it ran, every run of it (the first
// and each redrive) together: what `planc trace html` draws and `planc
// trace graph` colours.
type Timeline struct {
	// N is the plan's number; ID its id; Session the session's id.
	N       int
	ID      string
	Session string
	// Outcome is the last run's plan_end outcome; "" when it has none (it
	// is running, or planc died).
	Outcome string
	// Succeeded, Failed and Skipped count the rows by their last status.
	Succeeded, Failed, Skipped, NotRun int
	// Start and End bound every dispatch; zero when none has a time.
	Start, End time.Time
	// Runs counts the plan's runs: 1 + its redrives.
	Runs int
	// Rows holds one row per step: those the plan file declares, in
	// order, then those only the trace names.
	Rows []*TimelineRow
	// Program is the plan file lowered (nil when it cannot be read or does
	// not load): its kinds, dependencies and targets.
	Program *ir.Program

	dir string
	buf []byte // OutputHead's, reused
}

// TimelineRow is one step of a Timeline.
type TimelineRow struct {
	StepID string
	// Kind is tool, shell or capsule; "" when neither the trace nor the
	// plan file says.
	Kind string
	// Status is the step's last status (success, failed, skipped; running
	// or unsettled for a dispatch without its end); "" when it never
	// settled or ran (not run).
	Status string
	// Reused is set when that last status is a redrive's reuse.
	Reused bool
	// Error is that last status's error.
	Error string
	// Bars are the step's dispatches, in the order they started.
	Bars []TimelineBar
	// Duration is the settled dispatches' time together.
	Duration time.Duration
}

// TimelineBar is one dispatch of a step.
type TimelineBar struct {
	Attempt    int
	Redrive    int
	Status     string // success, failed, running or unsettled
	Start, End time.Time
	Duration   time.Duration
	Error      string
	// Output is where the attempt's output is kept, in the session
	// directory (sessionfmt.OutputPath); the file may be missing (a dispatch that
	// never ended, a session from before outputs were kept).
	Output string
}

// timing is the times of one dispatch, from its two lines.
type timing struct{ start, end time.Time }

// timings reads each dispatch's start and end time from the trace's lines,
// grouping lines into plans as FromEvents does.
func timings(s *tracefile.Session) map[*tracefile.Plan]map[attemptKey]*timing {
	out := map[*tracefile.Plan]map[attemptKey]*timing{}
	var started []*tracefile.Plan
	for _, p := range s.Plans {
		if p.Started {
			started = append(started, p)
		}
	}
	open := map[string]*tracefile.Plan{}
	next := 0
	for i := range s.Events {
		e := &s.Events[i]
		switch e.Event {
		case sessionfmt.EventPlanStart:
			if next < len(started) {
				open[tracefile.PlanKey(e)] = started[next]
				next++
			}
		case sessionfmt.EventPlanEnd:
			delete(open, tracefile.PlanKey(e))
		case sessionfmt.EventPlanStepStart, sessionfmt.EventPlanStep:
			p := open[tracefile.PlanKey(e)]
			if p == nil || e.Attempt < 1 || e.Reused || e.TS.IsZero() {
				continue
			}
			m := out[p]
			if m == nil {
				m = map[attemptKey]*timing{}
				out[p] = m
			}
			k := attemptKey{e.StepID, e.Attempt}
			t := m[k]
			if t == nil {
				t = &timing{}
				m[k] = t
			}
			if e.Event == sessionfmt.EventPlanStepStart {
				t.start = e.TS
			} else {
				t.end = e.TS
			}
		}
	}
	return out
}

// PlanTimeline returns plan n of the session as it ran, every run of it
// together; the error names the plans there are when it has no plan n.
func PlanTimeline(s *tracefile.Session, n int) (*Timeline, error) {
	runs, err := s.RunsOf(n)
	if err != nil {
		return nil, err
	}
	last := runs[len(runs)-1]
	tl := &Timeline{N: n, ID: runs[0].ID, Session: s.ID, Runs: len(runs), dir: s.Dir}
	if last.Ended {
		tl.Outcome = last.Outcome
	}
	if src, err := regfile.ReadFile(filepath.Join(s.Dir, filepath.FromSlash(sessionfmt.PlanFile(n)))); err == nil {
		if plan, _ := check.Load(src, nil); plan != nil {
			tl.Program, _ = ir.Lower(plan)
		}
	}
	byID := map[string]*TimelineRow{}
	for _, id := range s.StepIDs(n) {
		r := &TimelineRow{StepID: id}
		byID[id] = r
		tl.Rows = append(tl.Rows, r)
	}
	if tl.Program != nil {
		for i := range tl.Program.Steps {
			if r := byID[tl.Program.Steps[i].ID]; r != nil {
				r.Kind = tl.Program.Steps[i].Kind.String()
			}
		}
	}
	times := timings(s)
	for _, p := range runs {
		for _, a := range p.Attempts {
			r := byID[a.StepID]
			if r == nil {
				continue
			}
			status := s.AttemptRow(p, a)[2]
			status = strings.TrimSuffix(status, " (reused)")
			if a.Kind != "" {
				r.Kind = a.Kind
			}
			r.Status, r.Reused, r.Error = status, a.Reused, a.Error
			if status == "?" {
				r.Status = ""
			}
			if !a.Dispatched || a.Attempt < 1 {
				continue
			}
			b := TimelineBar{Attempt: a.Attempt, Redrive: p.Redrive, Status: status, Duration: a.Duration, Error: a.Error}
			if t := times[p][attemptKey{a.StepID, a.Attempt}]; t != nil {
				b.Start, b.End = t.start, t.end
			}
			if b.End.IsZero() && !b.Start.IsZero() && a.Settled {
				b.End = b.Start.Add(a.Duration)
			}
			if a.Settled {
				r.Duration += a.Duration
			}
			b.Output = sessionfmt.OutputPath(n, a.StepID, a.Attempt)
			for _, t := range []time.Time{b.Start, b.End} {
				if t.IsZero() {
					continue
				}
				if tl.Start.IsZero() || t.Before(tl.Start) {
					tl.Start = t
				}
				if t.After(tl.End) {
					tl.End = t
				}
			}
			r.Bars = append(r.Bars, b)
		}
	}
	for _, r := range tl.Rows {
		switch r.Status {
		case "success":
			tl.Succeeded++
		case "failed":
			tl.Failed++
		case "skipped":
			tl.Skipped++
		default:
			tl.NotRun++
		}
	}
	return tl, nil
}

// Total is the time from the first dispatch's start to the last one's end.
func (tl *Timeline) Total() time.Duration { return tl.End.Sub(tl.Start) }

// OutputHead returns the first lines (at most lines, each cut at 200
// characters, at most 4 KiB read) of bar b's kept output, "" when none is
// kept (its file is missing or unreadable).
func (tl *Timeline) OutputHead(b *TimelineBar, lines int) string {
	if b.Output == "" {
		return ""
	}
	f, err := regfile.Open(filepath.Join(tl.dir, filepath.FromSlash(b.Output)))
	if err != nil {
		return ""
	}
	defer f.Close()
	if tl.buf == nil {
		tl.buf = make([]byte, 4096)
	}
	buf := tl.buf
	k, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return ""
	}
	buf = buf[:k]
	var out []string
	for len(out) < lines && len(buf) > 0 {
		line := buf
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			line, buf = buf[:i], buf[i+1:]
		} else {
			buf = nil
		}
		l := tracefile.Clean(string(line))
		if r := []rune(l); len(r) > 200 {
			l = string(r[:199]) + "…"
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// WriteGraph writes plan n of the session as it ran (`planc trace graph`):
// the plan file's drawing (graph.WriteRunDOT, or graph.WriteRunMermaid for
// format "mermaid"), each step coloured and labelled by what the trace
// says of it, the tool lane as the run dispatched it.
func WriteGraph(w io.Writer, s *tracefile.Session, n int, format string) error {
	tl, err := PlanTimeline(s, n)
	if err != nil {
		return err
	}
	if tl.Program == nil {
		return fmt.Errorf("plan %d's file %s is missing or does not load, so its graph cannot be drawn; planc trace steps shows its rows", n, sessionfmt.PlanFile(n))
	}
	p := tl.Program
	rows := map[string]*TimelineRow{}
	for _, r := range tl.Rows {
		rows[r.StepID] = r
	}
	run := &graph.Run{Steps: make([]graph.StepRun, len(p.Steps))}
	index := map[string]int32{}
	for i := range p.Steps {
		index[p.Steps[i].ID] = int32(i)
		r := rows[p.Steps[i].ID]
		if r == nil {
			continue
		}
		sr := graph.StepRun{Status: r.Status, Attempts: len(r.Bars), Reused: r.Reused}
		if r.Status == "running" || r.Status == "unsettled" {
			sr.Status = ""
		}
		if len(r.Bars) > 0 {
			sr.Duration = tracefile.Duration(r.Duration)
		}
		run.Steps[i] = sr
	}
	type dispatch struct {
		at   time.Time
		step int32
	}
	var lane []dispatch
	for _, r := range tl.Rows {
		i, ok := index[r.StepID]
		if !ok || p.Steps[i].Kind != ir.KindTool {
			continue
		}
		for _, b := range r.Bars {
			lane = append(lane, dispatch{b.Start, i})
		}
	}
	slices.SortStableFunc(lane, func(a, b dispatch) int { return a.at.Compare(b.at) })
	for _, d := range lane {
		run.ToolLane = append(run.ToolLane, d.step)
	}
	if format == "mermaid" {
		return graph.WriteRunMermaid(w, p, run)
	}
	return graph.WriteRunDOT(w, p, run)
}

// attemptKey names one dispatch of a step.
type attemptKey struct {
	stepID  string
	attempt int
}
