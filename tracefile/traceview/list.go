package traceview

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/planc/planc/tracefile"
)

// Outcome of a plan whose last run has plan_start and no plan_end: it is
// still running, or its planc died (S27: `planc run --resume` redrives
// it).
const OutcomeUnfinished = "unfinished"

// OutcomeRunning is the outcome `planc trace list` shows for an unfinished
// plan whose lock a planc holds (S27): it is running now. An unfinished
// plan whose lock nobody holds was left by a planc that died.
const OutcomeRunning = "running"

// SessionJSON is one session of `planc trace list`: who it is and its
// plans. `--format json` writes one a line (JSON Lines).
type SessionJSON struct {
	Session string  `json:"session"`
	Dir     string  `json:"dir"` // the session directory
	Capsule *string `json:"capsule"`
	Version *string `json:"version"`
	Started *string `json:"started"`
	// ExitStatus is the last run's session_end exit_status, null without
	// one.
	ExitStatus *string `json:"exit_status"`
	// Plans are the plans the session started, by number.
	Plans []PlanSummary `json:"plans"`

	notes []string // SkippedLines of the session
}

// PlanSummary is one plan of a session over all its runs.
type PlanSummary struct {
	// Plan is the plan's number, null for lines whose plan_start the trace
	// lacks.
	Plan   *int   `json:"plan"`
	PlanID string `json:"plan_id"`
	// Outcome is that of its last run: completed, failed, canceled, or
	// unfinished (plan_start without plan_end); `planc trace list` shows
	// an unfinished plan that is running now as running.
	Outcome string `json:"outcome"`
	// FailedStep is the step that stopped the last run, null when none
	// did.
	FailedStep *string `json:"failed_step"`
	// Redrives is how many redrives of it started (S28): its runs less
	// one.
	Redrives int `json:"redrives"`
	// Steps is how many steps it declares, null without a plan_start.
	Steps *int `json:"steps"`
}

// ListSessions reads every session directory under root (such as
// .planc/sessions), newest first: by name, which starts with the UTC time
// the session was made, the order in which Latest picks the first. A
// directory with neither trace.jsonl nor session.json is not a session
// and is left out. A root that does not exist holds no session; the
// error is for a root that cannot be read.
func ListSessions(root string) ([]SessionJSON, error) {
	entries, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot list the sessions: %v", err)
	}
	var out []SessionJSON
	for _, ent := range slices.Backward(entries) {
		dir := filepath.Join(root, ent.Name())
		if !ent.IsDir() || !tracefile.IsSessionDir(dir) {
			continue
		}
		s, err := tracefile.OpenTop(dir)
		if err != nil {
			continue // gone since ReadDir
		}
		out = append(out, Summary(s))
	}
	return out, nil
}

// Summary returns s as `planc trace list` shows it: one entry per plan
// number, in order, each with its last run's outcome and its redrives;
// then, for lines whose plan_start the trace lacks, one entry per such
// plan.
func Summary(s *tracefile.Session) SessionJSON {
	j := SessionJSON{Session: s.ID, Dir: s.Dir, Capsule: nonEmpty(s.Capsule), Version: nonEmpty(s.Version),
		Started: nonEmpty(s.Started), Plans: []PlanSummary{}, notes: SkippedLines(s)}
	if st, ok := s.ExitStatus(); ok {
		j.ExitStatus = &st
	}
	for _, n := range s.PlanNumbers() {
		j.Plans = append(j.Plans, summarize(s.PlanRuns(n)))
	}
	for _, p := range s.Plans {
		if planNumber(p) == nil {
			j.Plans = append(j.Plans, summarize([]*tracefile.Plan{p}))
		}
	}
	return j
}

// summarize sums up the runs of one plan.
func summarize(runs []*tracefile.Plan) PlanSummary {
	first, last := runs[0], runs[len(runs)-1]
	ps := PlanSummary{Plan: planNumber(first), PlanID: first.ID, Outcome: OutcomeUnfinished}
	for _, p := range runs {
		ps.Redrives = max(ps.Redrives, p.Redrive)
	}
	ps.Redrives = max(ps.Redrives, len(runs)-1)
	if first.Started {
		ps.Steps = &first.StepCount
	}
	if last.Ended {
		ps.Outcome, ps.FailedStep = cmp.Or(last.Outcome, "?"), nonEmpty(last.FailedStep)
	}
	return ps
}

// Notes returns the notes about the lines of the session's trace that
// were skipped (SkippedLines): `planc trace list` writes them on
// standard error.
func (j *SessionJSON) Notes() []string { return j.notes }

// listHeader is the header row of `planc trace list`.
var listHeader = []string{"SESSION", "PLAN", "ID", "OUTCOME", "REDRIVES", "STEPS", "FAILED STEP"}

// WriteList writes `planc trace list`: one row per plan of every session
// (SESSION, PLAN number, plan ID, OUTCOME, REDRIVES, STEPS declared, and
// the FAILED STEP that stopped its last run), the session repeated on
// each; a session without plans has one row with "-" for the rest.
func WriteList(w io.Writer, sessions []SessionJSON) error {
	rows := [][]string{listHeader}
	for _, s := range sessions {
		id := cmp.Or(s.Session, filepath.Base(s.Dir))
		if len(s.Plans) == 0 {
			rows = append(rows, []string{id, "-", "-", "-", "-", "-", ""})
		}
		for _, p := range s.Plans {
			num, steps := "-", "-"
			if p.Plan != nil {
				num = strconv.Itoa(*p.Plan)
			}
			if p.Steps != nil {
				steps = strconv.Itoa(*p.Steps)
			}
			failed := ""
			if p.FailedStep != nil {
				failed = *p.FailedStep
			}
			rows = append(rows, []string{id, num, p.PlanID, p.Outcome, strconv.Itoa(p.Redrives), steps, failed})
		}
	}
	_, err := io.WriteString(w, table("", rows))
	return err
}

// WriteListJSON writes the sessions as JSON Lines: one object a session,
// no line at all when there is none.
func WriteListJSON(w io.Writer, sessions []SessionJSON) error {
	var b bytes.Buffer
	for _, s := range sessions {
		if err := encodeLine(&b, s); err != nil {
			return err
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// MarkRunning sets the outcome of each unfinished plan in sessions whose
// lock is held (held says, as host/session.PlanHeld does) to
// OutcomeRunning: it is running now; one whose lock nobody holds was left
// by a planc that died (S27) and stays unfinished. It returns a note for
// each plan it cannot tell about.
func MarkRunning(sessions []SessionJSON, held func(dir string, n int) (bool, error)) []string {
	var notes []string
	for i := range sessions {
		for j := range sessions[i].Plans {
			p := &sessions[i].Plans[j]
			if p.Outcome != OutcomeUnfinished || p.Plan == nil {
				continue
			}
			h, err := held(sessions[i].Dir, *p.Plan)
			switch {
			case err != nil:
				notes = append(notes, fmt.Sprintf("cannot tell whether plan %d of %s is running (%v); it is listed as unfinished", *p.Plan, sessions[i].Session, err))
			case h:
				p.Outcome = OutcomeRunning
			}
		}
	}
	return notes
}
