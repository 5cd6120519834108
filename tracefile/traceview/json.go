package traceview

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"

	"github.com/planc/planc/internal/sessionfmt"
	"github.com/planc/planc/tracefile"
)

// The JSON forms of `planc trace steps`, `show` and `list` (`--format
// json`, docs/trace.md "Reading a run afterwards"). Their members are
// fixed: every member is always there, null when it has no value, in the
// order the structs below give; new members may be added, none removed or
// renamed.

// StepJSON is one row of `planc trace steps --format json`: one attempt of
// a step, with the plan it belongs to. WriteStepsJSON writes one a line
// (JSON Lines).
type StepJSON struct {
	// Plan is the plan's number in the session (plans/plan-<n>.json), null
	// when the trace lacks its plan_start.
	Plan *int `json:"plan"`
	// PlanID is the plan's id.
	PlanID string `json:"plan_id"`
	// Redrive is 0 for the plan's first run, K for its K-th redrive (S28).
	Redrive int `json:"redrive"`
	AttemptJSON
}

// AttemptJSON is one attempt of a step: a row of StepJSON, and of a plan's
// attempts in ShowJSON.
type AttemptJSON struct {
	StepID string `json:"step_id"`
	// Kind is tool, shell or capsule from plan_step_start; null for a step
	// settled without a dispatch.
	Kind *string `json:"kind"`
	// Attempt is the attempt's number from 1; 0 for a step settled without
	// a dispatch; a reused step's recorded attempt.
	Attempt int `json:"attempt"`
	// Status is success, failed or skipped once settled; running for a
	// dispatch without its plan_step yet, unsettled when nothing more will
	// be written (its planc died); null when a plan_step had none.
	Status *string `json:"status"`
	// Reused is set for a step a redrive reused (S26).
	Reused bool `json:"reused"`
	// DurationMS is how long the attempt ran; null unless it was
	// dispatched and settled.
	DurationMS *int64 `json:"duration_ms"`
	// Error is the plan_step's error, null when none.
	Error *string `json:"error"`
	// OutputFile is where the attempt's whole output is kept, relative to
	// the session directory (sessionfmt.OutputPath; for a reused step, the attempt
	// that succeeded); null when no file is there.
	OutputFile *string `json:"output_file"`
}

// StepsJSON returns `planc trace steps --format json`'s rows for s: the
// rows of StepRows, without the header, as objects.
func StepsJSON(s *tracefile.Session) []StepJSON {
	var rows []StepJSON
	for _, p := range s.Plans {
		num := planNumber(p)
		for _, a := range p.Attempts {
			rows = append(rows, StepJSON{Plan: num, PlanID: p.ID, Redrive: p.Redrive, AttemptJSON: attemptJSON(s, p, a)})
		}
	}
	return rows
}

// WriteStepsJSON writes StepsJSON as JSON Lines: one object a line, no
// line at all for a trace without steps.
func WriteStepsJSON(w io.Writer, s *tracefile.Session) error {
	var b bytes.Buffer
	for _, r := range StepsJSON(s) {
		if err := encodeLine(&b, r); err != nil {
			return err
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// encodeLine appends v to b as one line of JSON, with <, > and & as they
// are.
func encodeLine(b *bytes.Buffer, v any) error {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// planNumber returns p's number, nil when its plan file names none.
func planNumber(p *tracefile.Plan) *int {
	if n, ok := sessionfmt.PlanNumber(p.File); ok {
		return &n
	}
	return nil
}

// attemptJSON is attemptRow as an object.
func attemptJSON(s *tracefile.Session, p *tracefile.Plan, a *tracefile.Attempt) AttemptJSON {
	row := s.AttemptRow(p, a)
	status := a.Status
	if !a.Settled {
		status = row[2]
	}
	j := AttemptJSON{StepID: a.StepID, Kind: nonEmpty(a.Kind), Attempt: a.Attempt, Status: nonEmpty(status), Reused: a.Reused, Error: nonEmpty(a.Error)}
	if a.Settled && a.Dispatched {
		ms := a.Duration.Milliseconds()
		j.DurationMS = &ms
	}
	if n, ok := sessionfmt.PlanNumber(p.File); ok && a.Attempt > 0 {
		out := sessionfmt.OutputPath(n, a.StepID, a.Attempt)
		if _, err := os.Stat(filepath.Join(s.Dir, filepath.FromSlash(out))); err == nil {
			j.OutputFile = &out
		}
	}
	return j
}

// nonEmpty returns &v, or nil for "".
func nonEmpty(v string) *string {
	if v == "" {
		return nil
	}
	return &v
}

// ShowJSON is `planc trace show --format json`: the whole session, as
// WriteShow shows it, as one object.
type ShowJSON struct {
	Session string  `json:"session"`
	Dir     string  `json:"dir"` // the session directory
	Capsule *string `json:"capsule"`
	Version *string `json:"version"`
	Started *string `json:"started"`
	// SpawnedBy and DelegationID name the parent of a sub-capsule's
	// session; null at top level.
	SpawnedBy    *string `json:"spawned_by"`
	DelegationID *string `json:"delegation_id"`
	// ExitStatus is the last run's session_end exit_status, null without
	// one; SpawnerEnded is set when the trace has spawner_ended.
	ExitStatus   *string `json:"exit_status"`
	SpawnerEnded bool    `json:"spawner_ended"`
	// Runs are the session_start lines: one per `planc run` of the
	// session.
	Runs        []RunJSON        `json:"runs"`
	Plans       []PlanJSON       `json:"plans"`
	Tasks       []TaskJSON       `json:"tasks"`
	Delegations []DelegationJSON `json:"delegations"`
	// Notes are every note about the session, those about skipped lines
	// included (`planc trace` writes those on standard error as well).
	Notes []NoteJSON `json:"notes"`
}

// RunJSON is one session_start and its session_end.
type RunJSON struct {
	Started    *string `json:"started"` // session_start's ts, RFC 3339
	Ended      bool    `json:"ended"`
	ExitStatus *string `json:"exit_status"`
}

// PlanJSON is one run of a plan: plan_start to plan_end.
type PlanJSON struct {
	Plan     *int    `json:"plan"` // as StepJSON's
	PlanID   string  `json:"plan_id"`
	PlanFile *string `json:"plan_file"`
	SHA256   *string `json:"sha256"`
	Redrive  int     `json:"redrive"`
	// Steps is how many steps the plan declares (plan_start's steps), null
	// without its plan_start.
	Steps *int `json:"steps"`
	// Ended is set when the trace has its plan_end; Outcome, FailedStep
	// and the counts are that line's, null while it has none.
	Ended      bool          `json:"ended"`
	Outcome    *string       `json:"outcome"`
	FailedStep *string       `json:"failed_step"`
	Succeeded  *int          `json:"succeeded"`
	Failed     *int          `json:"failed"`
	Skipped    *int          `json:"skipped"`
	Attempts   []AttemptJSON `json:"attempts"`
	Denials    []DenialJSON  `json:"denials"`
}

// DenialJSON is a protected_path_denied or call_denied line: Path for
// the first, Hook and On for the second, null otherwise.
type DenialJSON struct {
	Event  string  `json:"event"`
	StepID string  `json:"step_id"`
	Path   *string `json:"path"`
	Hook   *int    `json:"hook"`
	On     *string `json:"on"`
}

// TaskJSON is a cancelled task.
type TaskJSON struct {
	TaskID        string   `json:"task_id"`
	Canceled      bool     `json:"canceled"`
	DelegationIDs []string `json:"delegation_ids"`
	Ended         bool     `json:"ended"`
	Outcome       *string  `json:"outcome"`
}

// DelegationJSON is one sub-capsule and the session it left.
type DelegationJSON struct {
	DelegationID string  `json:"delegation_id"`
	PlanID       *string `json:"plan_id"`
	StepID       *string `json:"step_id"`
	Capsule      *string `json:"capsule"`
	Version      *string `json:"version"`
	PID          *int    `json:"pid"`
	// InTrace is false for a directory under delegations/ that the trace
	// does not name.
	InTrace    bool                   `json:"in_trace"`
	Ended      bool                   `json:"ended"`
	Outcome    *string                `json:"outcome"`
	Reason     *string                `json:"reason"`
	Completion *sessionfmt.Completion `json:"completion"`
	Note       *string                `json:"note"`
	Child      *ShowJSON              `json:"session"` // its own session, null when it could not be read
}

// NoteJSON is a Note.
type NoteJSON struct {
	Line    *int   `json:"line"` // null for a note about no one line
	Text    string `json:"text"`
	Skipped bool   `json:"skipped"`
}

// Show returns `planc trace show --format json`'s object for s.
func Show(s *tracefile.Session) *ShowJSON {
	j := &ShowJSON{Session: s.ID, Dir: s.Dir, Capsule: nonEmpty(s.Capsule), Version: nonEmpty(s.Version), Started: nonEmpty(s.Started),
		SpawnedBy: nonEmpty(s.SpawnedBy), DelegationID: nonEmpty(s.DelegationID), SpawnerEnded: s.SpawnerEnded,
		Runs: []RunJSON{}, Plans: []PlanJSON{}, Tasks: []TaskJSON{}, Delegations: []DelegationJSON{}, Notes: []NoteJSON{}}
	if st, ok := s.ExitStatus(); ok {
		j.ExitStatus = &st
	}
	for _, r := range s.Runs {
		rj := RunJSON{Ended: r.Ended}
		if !r.Start.IsZero() {
			ts := r.Start.UTC().Format("2006-01-02T15:04:05.000000000Z07:00")
			rj.Started = &ts
		}
		if r.Ended {
			rj.ExitStatus = &r.ExitStatus
		}
		j.Runs = append(j.Runs, rj)
	}
	for _, p := range s.Plans {
		j.Plans = append(j.Plans, planJSON(s, p))
	}
	for _, t := range s.Tasks {
		j.Tasks = append(j.Tasks, TaskJSON{TaskID: t.ID, Canceled: t.Canceled, DelegationIDs: orEmpty(t.DelegationIDs), Ended: t.Ended, Outcome: nonEmpty(t.Outcome)})
	}
	for _, d := range s.Delegations {
		dj := DelegationJSON{DelegationID: d.ID, PlanID: nonEmpty(d.PlanID), StepID: nonEmpty(d.StepID), Capsule: nonEmpty(d.Capsule),
			Version: nonEmpty(d.Version), InTrace: d.InTrace, Ended: d.Ended, Outcome: nonEmpty(d.Outcome), Reason: nonEmpty(d.Reason),
			Completion: d.Completion, Note: nonEmpty(d.Note)}
		if d.PID > 0 {
			dj.PID = &d.PID
		}
		if d.Child != nil {
			dj.Child = Show(d.Child)
		}
		j.Delegations = append(j.Delegations, dj)
	}
	for _, n := range s.Notes {
		nj := NoteJSON{Text: n.Text, Skipped: n.Skipped}
		if n.Line > 0 {
			nj.Line = &n.Line
		}
		j.Notes = append(j.Notes, nj)
	}
	return j
}

// planJSON is one plan run as an object.
func planJSON(s *tracefile.Session, p *tracefile.Plan) PlanJSON {
	j := PlanJSON{Plan: planNumber(p), PlanID: p.ID, PlanFile: nonEmpty(p.File), SHA256: nonEmpty(p.SHA256), Redrive: p.Redrive,
		Ended: p.Ended, Attempts: []AttemptJSON{}, Denials: []DenialJSON{}}
	if p.Started {
		j.Steps = &p.StepCount
	}
	if p.Ended {
		j.Outcome, j.FailedStep = nonEmpty(p.Outcome), nonEmpty(p.FailedStep)
		j.Succeeded, j.Failed, j.Skipped = &p.Succeeded, &p.Failed, &p.Skipped
	}
	for _, a := range p.Attempts {
		j.Attempts = append(j.Attempts, attemptJSON(s, p, a))
	}
	for _, d := range p.Denials {
		dj := DenialJSON{Event: d.Event, StepID: d.StepID}
		if d.Event == sessionfmt.EventProtectedPathDenied {
			dj.Path = &d.Path
		} else {
			dj.Hook, dj.On = &d.Hook, &d.On
		}
		j.Denials = append(j.Denials, dj)
	}
	return j
}

// orEmpty returns list, or an empty list for nil (so JSON has [], not
// null).
func orEmpty(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}

// WriteShowJSON writes Show(s) as one JSON object, indented by two
// spaces as `planc run` prints its report.
func WriteShowJSON(w io.Writer, s *tracefile.Session) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(Show(s)); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}
