package tracefile

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/internal/regfile"
	"github.com/planc/planc/internal/sessionfmt"
)

// PlanNumbers returns the numbers of the plans the session's trace started
// (plan_start's plan_file, sessionfmt.PlanNumber), ascending, each once.
func (s *Session) PlanNumbers() []int {
	var ns []int
	for _, p := range s.Plans {
		if n, ok := sessionfmt.PlanNumber(p.File); ok && !slices.Contains(ns, n) {
			ns = append(ns, n)
		}
	}
	slices.Sort(ns)
	return ns
}

// LastPlan returns the highest plan number the trace started, the plan
// `planc trace logs` and `report` read when not told (as `planc run
// --resume` redrives), and false when the trace started none.
func (s *Session) LastPlan() (int, bool) {
	ns := s.PlanNumbers()
	if len(ns) == 0 {
		return 0, false
	}
	return ns[len(ns)-1], true
}

// PlanRuns returns the runs of plan n in the order they started: the first
// run, then each redrive (S28).
func (s *Session) PlanRuns(n int) []*Plan {
	var runs []*Plan
	for _, p := range s.Plans {
		if m, ok := sessionfmt.PlanNumber(p.File); ok && m == n {
			runs = append(runs, p)
		}
	}
	return runs
}

// NoPlanError is the error of a session that has started no plan: its
// trace holds no plan_start, or it could not be read at all (TraceErr).
func (s *Session) NoPlanError() error {
	if s.TraceErr != nil {
		return fmt.Errorf("session %s: its trace cannot be read: %s", Clean(quote(s.ID)), Clean(s.TraceErr.Error()))
	}
	return fmt.Errorf("session %s has started no plan (its trace has no plan_start)", Clean(quote(s.ID)))
}

// RunsOf returns the runs of plan n, or an error naming the plans there are.
func (s *Session) RunsOf(n int) ([]*Plan, error) {
	if runs := s.PlanRuns(n); len(runs) > 0 {
		return runs, nil
	}
	ns := s.PlanNumbers()
	if len(ns) == 0 {
		return nil, s.NoPlanError()
	}
	return nil, fmt.Errorf("session %s has no plan %d; its plans are %s", Clean(quote(s.ID)), n, numberList(ns))
}

// numberList formats ns as "1, 2 and 3".
func numberList(ns []int) string {
	words := make([]string, len(ns))
	for i, n := range ns {
		words[i] = strconv.Itoa(n)
	}
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// keptResults reports whether the plan's runs were written by a planc that
// keeps results (S24): its plan_start records the plan file's SHA-256.
func keptResults(runs []*Plan) bool {
	return slices.ContainsFunc(runs, func(p *Plan) bool { return p.SHA256 != "" })
}

// StepIDs returns the step ids of plan n: those its plan file,
// sessionfmt.PlanFile(n) in the session directory, declares, in order, then those
// only the trace names, in the order first seen.
func (s *Session) StepIDs(n int) []string {
	var ids []string
	seen := map[string]bool{}
	add := func(id string) {
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	var doc struct {
		Steps []struct {
			ID string `json:"id"`
		} `json:"steps"`
	}
	if b, err := regfile.ReadFile(filepath.Join(s.Dir, filepath.FromSlash(sessionfmt.PlanFile(n)))); err == nil && json.Unmarshal(b, &doc) == nil {
		for _, st := range doc.Steps {
			add(st.ID)
		}
	}
	for _, p := range s.PlanRuns(n) {
		for _, a := range p.Attempts {
			add(a.StepID)
		}
	}
	return ids
}

// LogAttempt is one dispatched attempt of a step, as `planc trace logs`
// heads it, with where its output is kept.
type LogAttempt struct {
	// Attempt is the attempt's number, from 1, counted on across redrives.
	Attempt int
	// Redrive is the run of the plan that dispatched it: 0 for the first
	// run, K for the K-th redrive.
	Redrive int
	// Status is the attempt's status as `planc trace steps` shows it:
	// success, failed or skipped once settled; running, or unsettled when
	// nothing more will be written (planc died while it ran).
	Status   string
	Duration time.Duration // how long it ran; 0 until it settled
	Settled  bool
	Error    string
	// Path is where its whole output is kept, sessionfmt.OutputPath relative to the
	// session directory; Kept reports whether the file is there, or
	// whether the attempt printed nothing (Empty).
	Path string
	Kept bool
	// Empty is true for an attempt that printed nothing: it has no file,
	// and the plan's output index records 0 bytes for it.
	Empty bool
}

// StepLogs is what `planc trace logs` shows of one step of one plan: each
// of its dispatched attempts over every run of the plan, in attempt order.
type StepLogs struct {
	// Dir is the session directory the paths are relative to.
	Dir      string
	N        int
	StepID   string
	Attempts []LogAttempt
}

// StepLogs finds the dispatched attempts of step id in plan n, and which of
// them have their output kept. The error explains, for `planc trace logs`
// to print, a plan the session did not start, a step the plan does not
// have (with a did-you-mean over its step ids, or the plan of the session
// that has it when fromDefault says n was not chosen by the user), a step
// never dispatched, and a step none of whose attempts left a kept output
// (a session from before planc kept them, S24).
func (s *Session) StepLogs(n int, id string, fromDefault bool) (*StepLogs, error) {
	runs, err := s.RunsOf(n)
	if err != nil {
		return nil, err
	}
	l := &StepLogs{Dir: s.Dir, N: n, StepID: id}
	var last *Attempt
	var empty map[int]bool // the attempts the output index says printed nothing
	for _, p := range runs {
		for _, a := range p.Attempts {
			if a.StepID != id || a.NotRun {
				continue
			}
			last = a
			if !a.Dispatched || a.Attempt < 1 {
				continue
			}
			row := s.AttemptRow(p, a)
			la := LogAttempt{Attempt: a.Attempt, Redrive: p.Redrive, Status: strings.TrimSuffix(row[2], " (reused)"),
				Settled: a.Settled, Duration: a.Duration, Error: a.Error, Path: sessionfmt.OutputPath(n, id, a.Attempt)}
			_, err := os.Stat(filepath.Join(s.Dir, filepath.FromSlash(la.Path)))
			la.Kept = err == nil
			if !la.Kept && a.Settled {
				if empty == nil {
					empty = emptyOutputs(filepath.Join(s.Dir, filepath.FromSlash(sessionfmt.OutputIndexPath(n))), id)
				}
				la.Kept = empty[a.Attempt]
				la.Empty = la.Kept
			}
			l.Attempts = append(l.Attempts, la)
		}
	}
	slices.SortStableFunc(l.Attempts, func(a, b LogAttempt) int { return a.Attempt - b.Attempt })
	var ids []string
	if last == nil {
		ids = s.StepIDs(n)
	}
	switch {
	case last == nil && !slices.Contains(ids, id):
		return nil, s.unknownStep(n, id, ids, fromDefault)
	case len(l.Attempts) == 0:
		how := "the trace has no line for it (the plan stopped, or was cut short, before it)"
		if last != nil {
			how = "it settled " + cmp.Or(last.Status, "?") + " without running"
			if last.Error != "" {
				how += " (" + Clean(last.Error) + ")"
			}
		}
		return nil, fmt.Errorf("step %s of plan %d was never dispatched, so it printed nothing: %s", Clean(quote(id)), n, how)
	}
	for _, a := range l.Attempts {
		if a.Kept {
			return l, nil
		}
	}
	final := &l.Attempts[len(l.Attempts)-1]
	switch {
	case !keptResults(runs):
		return nil, fmt.Errorf("no output was kept for step %s of plan %d: the session is from before planc kept step outputs (its plan_start records no sha256); planc trace steps shows how each attempt ended", Clean(quote(id)), n)
	case !final.Settled:
		return nil, fmt.Errorf("no output was kept for step %s of plan %d: attempt %d %s", Clean(quote(id)), n, final.Attempt, final.Missing())
	}
	return nil, fmt.Errorf("no output was kept for step %s of plan %d: %s is missing", Clean(quote(id)), n, l.Attempts[0].Path)
}

// unknownStep is the error for a step plan n does not have.
func (s *Session) unknownStep(n int, id string, ids []string, fromDefault bool) error {
	msg := fmt.Sprintf("plan %d has no step %s", n, Clean(quote(id)))
	// Another plan with the very step is a better answer than a near name
	// in this one.
	if fromDefault {
		for _, m := range slices.Backward(s.PlanNumbers()) {
			if m != n && slices.Contains(s.StepIDs(m), id) {
				return fmt.Errorf("%s (the session's last plan); plan %d has it: add --plan %d", msg, m, m)
			}
		}
	}
	if sug := ast.Suggest(id, ids); sug != "" {
		return fmt.Errorf("%s; did you mean %s?", msg, Clean(quote(sug)))
	}
	return fmt.Errorf("%s; planc trace steps lists the steps that ran", msg)
}

// Attempt returns attempt k of the step, or an error naming the attempts
// there are.
func (l *StepLogs) Attempt(k int) (*LogAttempt, error) {
	var have []int
	for i := range l.Attempts {
		if l.Attempts[i].Attempt == k {
			return &l.Attempts[i], nil
		}
		have = append(have, l.Attempts[i].Attempt)
	}
	word := "attempts are"
	if len(have) == 1 {
		word = "only attempt is"
	}
	return nil, fmt.Errorf("step %s of plan %d has no attempt %d; its %s %s", Clean(quote(l.StepID)), l.N, k, word, numberList(have))
}

// Missing explains why attempt a has no kept output, "" when it has one.
func (a *LogAttempt) Missing() string {
	switch {
	case a.Kept:
		return ""
	case a.Status == "running":
		return "is still running: its output is kept when it ends"
	case a.Status == "unsettled":
		return "never ended (planc died while it ran), so its output was not kept"
	}
	return "has no kept output: " + a.Path + " is missing"
}

// Heading is the line `planc trace logs` writes above the attempt's
// output: "==> STEP, attempt K: STATUS after DURATION <==", with
// "(redrive K)" after the attempt number when a redrive dispatched it, the
// attempt's error (on one line, cut at maxHeadingError bytes) after the
// duration, and "; no output kept" (or why there is none) when there is no
// output.
func (a *LogAttempt) Heading(stepID string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "==> %s, attempt %d", Clean(stepID), a.Attempt)
	if a.Redrive > 0 {
		fmt.Fprintf(&b, " (redrive %d)", a.Redrive)
	}
	b.WriteString(": " + cmp.Or(Clean(a.Status), "?"))
	switch {
	case a.Settled:
		b.WriteString(" after " + Duration(a.Duration))
		if a.Error != "" {
			// A failed tool call often printed nothing: its error is
			// why it failed.
			b.WriteString(": " + headingError(a.Error))
		}
		if !a.Kept {
			b.WriteString("; no output kept")
		}
	case a.Status == "running":
		b.WriteString("; its output is kept when it ends")
	default:
		b.WriteString(": planc died while it ran; no output kept")
	}
	b.WriteString(" <==")
	return b.String()
}

// File returns the attempt's kept output file, as a path joined to the
// session directory.
func (l *StepLogs) File(a *LogAttempt) string {
	return filepath.Join(l.Dir, filepath.FromSlash(a.Path))
}

// Report returns plan n's kept report exactly as kept, sessionfmt.ReportPath(n), and
// a note when it may not be the newest run's (the plan's last run has no
// plan_end). The error explains a plan the session did not start and a
// report that is not there: the plan has not ended, or the session is
// from before planc kept reports (S24).
func (s *Session) Report(n int) (report []byte, note string, err error) {
	runs, err := s.RunsOf(n)
	if err != nil {
		return nil, "", err
	}
	last := runs[len(runs)-1]
	b, err := regfile.ReadFile(filepath.Join(s.Dir, filepath.FromSlash(sessionfmt.ReportPath(n))))
	switch {
	case err == nil:
		if !last.Ended {
			note = fmt.Sprintf("plan %d's last run has no plan_end (still running, or planc died): this report is an earlier run's", n)
		}
		return b, note, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, "", err
	case !last.Ended:
		// A redrive sets the report before it aside as it starts (S28):
		// that one is the newest kept, the earlier run's.
		for k := len(runs) - 2; k >= 0; k-- {
			if b, err := regfile.ReadFile(filepath.Join(s.Dir, filepath.FromSlash(sessionfmt.RedriveReportPath(n, k)))); err == nil {
				return b, fmt.Sprintf("plan %d's last run has no plan_end (still running, or planc died): this report is an earlier run's, %s", n, sessionfmt.RedriveReportPath(n, k)), nil
			}
		}
		return nil, "", fmt.Errorf("plan %d has no report yet: its run has no plan_end (still running, or planc died; planc run --resume redrives it)", n)
	case !keptResults(runs):
		return nil, "", fmt.Errorf("no report was kept for plan %d: the session is from before planc kept reports (its plan_start records no sha256)", n)
	}
	return nil, "", fmt.Errorf("no report was kept for plan %d: %s is missing", n, sessionfmt.ReportPath(n))
}

// maxHeadingError is how much of an attempt's error a heading shows.
const maxHeadingError = 200

// headingError is err as a heading shows it: its line breaks as spaces,
// its control characters escaped, cut at maxHeadingError bytes.
func headingError(err string) string {
	err = strings.Join(strings.Fields(err), " ")
	if len(err) > maxHeadingError {
		cut := maxHeadingError
		for cut > 0 && !utf8.RuneStart(err[cut]) {
			cut--
		}
		err = err[:cut] + "…"
	}
	return Clean(err)
}
