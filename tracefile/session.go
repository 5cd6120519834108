package tracefile

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/planc/planc/internal/sessionfmt"
)

// Session is what one trace says about its session: who it is, how it
// ended, its plans with their steps, its delegations (each followed into
// its own session directory by Open) and tasks, and the notes met on the
// way.
type Session struct {
	// Path is what the session was opened from: a session directory or a
	// trace file.
	Path string
	// TraceErr is why the trace could not be opened (none, a FIFO, no
	// permission), nil when it was read.
	TraceErr error
	// Dir is the session directory, where delegations/ is looked for: Path,
	// or the trace file's directory.
	Dir string
	// ID, Capsule, Version, Started, SpawnedBy and DelegationID come from
	// session.json when the directory has one, else from the trace (the
	// first line's session, the first session_start).
	ID, Capsule, Version    string
	Started                 string
	SpawnedBy, DelegationID string
	// Runs are the session_start lines, each with its session_end.
	Runs []Run
	// SpawnerEnded is set when the trace has spawner_ended: the parent of
	// this sub-capsule died.
	SpawnerEnded bool
	// Plans are the plan runs, in the order they started.
	Plans []*Plan
	// Delegations are the delegations in the order first seen, then the
	// directories under delegations/ that the trace does not name.
	Delegations []*Delegation
	// Tasks are the tasks named by task_canceled and task_end lines.
	Tasks []*Task
	// Notes are what could not be read as it was, in line order.
	Notes []Note
	// Events are the trace's lines that could be read, unknown events
	// included.
	Events []Event

	openPlans      map[string]*Plan // PlanKey → the plan not yet ended
	delegationByID map[string]*Delegation
	taskByID       map[string]*Task
	planEntries    map[string]int // plan id → plans seen with it
	held           map[int]bool   // plan number → its lock is held (runGone), once asked
}

// Run is one session_start, with the session_end that closed it if any: a
// session reused by several `planc run` has several runs.
type Run struct {
	Start      time.Time
	Ended      bool
	ExitStatus string // session_end's exit_status; "" while not Ended
	plan       int    // session_start's plan number, 0 when it has none
}

// PlanKey is what groups e with the other lines of its plan's run: its
// plan number where the line has one (runs sharing a session write at
// once, maybe plans with the same id), else its plan_id, as traces
// written before lines carried the number are read.
func PlanKey(e *Event) string {
	if e.Plan > 0 {
		return "#" + strconv.Itoa(e.Plan)
	}
	return e.PlanID
}

// ExitStatus returns the exit status of the session's last run and
// whether the trace has one: a session whose last run has no session_end
// is still running, or its runtime died.
func (s *Session) ExitStatus() (string, bool) {
	if len(s.Runs) == 0 || !s.Runs[len(s.Runs)-1].Ended {
		return "", false
	}
	return s.Runs[len(s.Runs)-1].ExitStatus, true
}

// Plan is one plan run: plan_start to plan_end.
type Plan struct {
	ID        string
	File      string // plan_start's plan_file, e.g. plans/plan-1.json
	StepCount int    // plan_start's steps: how many the plan declares
	SHA256    string // plan_start's sha256, "" when absent
	// Redrive is K for the K-th redrive of the plan file (S28), 0 for a
	// first run.
	Redrive int
	Started bool // the trace has its plan_start
	Ended   bool // the trace has its plan_end
	// Outcome, FailedStep and the counts are plan_end's.
	Outcome                    string
	FailedStep                 string
	Succeeded, Failed, Skipped int
	// Attempts are the plan's step attempts in the order they were first
	// seen: one per dispatch, and one for each step settled without being
	// dispatched (Attempt 0).
	Attempts []*Attempt
	// Denials are the plan's protected_path_denied and call_denied lines.
	Denials []Event
	// Label tells plans with the same id apart: the id, with the plan
	// file's name when the trace holds the id more than once and the
	// redrive number on a redrive.
	Label string

	running map[attemptKey]*Attempt // dispatched, not yet settled
}

// attemptKey names one dispatch of a step.
type attemptKey struct {
	step    string
	attempt int
}

// Attempt is one row of `planc trace steps`: a dispatch (plan_step_start)
// with the plan_step that ended it, or a plan_step for a step settled
// without dispatch.
type Attempt struct {
	StepID     string
	Kind       string // plan_step_start's kind; "" when not dispatched
	Attempt    int    // from 1; 0 when the step was not dispatched; a reused step's recorded one
	Dispatched bool   // the trace has its plan_step_start
	Settled    bool   // the trace has its plan_step
	// NotRun marks a step the plan declares that its ended run never
	// settled (StatusNotRun): no line of the trace is about it.
	NotRun   bool
	Reused   bool   // a redrive reused the step's recorded success (S26)
	Status   string // plan_step's status
	Duration time.Duration
	Error    string
}

// Delegation is one sub-capsule: delegation_start to its terminal
// delegation line, and the child session it left in delegations/<id>/.
type Delegation struct {
	ID, PlanID, StepID string
	Capsule, Version   string
	PID                int
	Started, Ended     bool
	Outcome, Reason    string
	// Child is the child's session, nil when it could not be read (Note
	// says why).
	Child *Session
	// sessionfmt.Completion is the child directory's completion.json, nil when absent.
	Completion *sessionfmt.Completion
	// InTrace is false for a delegation directory the trace does not
	// name (a trace cut short, say).
	InTrace bool
	Note    string
}

// Task is a task of the session that was cancelled: task_canceled and
// task_end.
type Task struct {
	ID            string
	Canceled      bool
	DelegationIDs []string
	Ended         bool
	Outcome       string
}

// FromEvents builds a session from a trace's events. It never fails:
// lines that do not fit (a plan_step for a plan that never started, a
// second plan_end) are taken as well as they can be, with a note.
func FromEvents(events []Event) *Session {
	s := &Session{Events: events, openPlans: map[string]*Plan{}, delegationByID: map[string]*Delegation{},
		taskByID: map[string]*Task{}, planEntries: map[string]int{}}
	for i := range events {
		s.add(&events[i])
	}
	for _, p := range s.Plans {
		p.Label = p.ID
		var tags []string
		if s.planEntries[p.ID] > 1 {
			name := strings.TrimSuffix(filepath.Base(filepath.FromSlash(p.File)), ".json")
			if p.File == "" {
				name = "?"
			}
			tags = append(tags, name)
		}
		if p.Redrive > 0 {
			tags = append(tags, fmt.Sprintf("redrive %d", p.Redrive))
		}
		if len(tags) > 0 {
			p.Label = fmt.Sprintf("%s (%s)", p.ID, strings.Join(tags, ", "))
		}
	}
	return s
}

func (s *Session) note(e *Event, format string, args ...any) {
	s.Notes = append(s.Notes, Note{Line: e.Line, Text: fmt.Sprintf(format, args...)})
}

func (s *Session) add(e *Event) {
	if s.ID == "" {
		s.ID = e.Session
	}
	switch e.Event {
	case sessionfmt.EventSessionStart:
		s.Runs = append(s.Runs, Run{Start: e.TS, plan: e.Plan})
		if s.Capsule == "" {
			s.Capsule, s.Version, s.SpawnedBy, s.DelegationID = e.Capsule, e.Version, e.SpawnedBy, e.DelegationID
			s.Started = e.RawTS
		}
	case sessionfmt.EventSessionEnd:
		r := s.openRun(e.Plan)
		if r == nil {
			s.note(e, "session_end without a session_start before it")
			s.Runs = append(s.Runs, Run{plan: e.Plan})
			r = &s.Runs[len(s.Runs)-1]
		}
		r.Ended, r.ExitStatus = true, e.ExitStatus
	case sessionfmt.EventSpawnerEnded:
		s.SpawnerEnded = true
	case sessionfmt.EventPlanStart:
		// A redrive (S27) starts a plan again whose last run has no
		// plan_end by design: its planc died, and the views say so.
		if old := s.openPlans[PlanKey(e)]; old != nil && e.Redrive == 0 {
			s.note(e, "plan %s starts again before its plan_end", quote(e.PlanID))
		}
		p := &Plan{ID: e.PlanID, File: e.PlanFile, StepCount: e.Steps, SHA256: e.SHA256, Redrive: e.Redrive, Started: true}
		s.Plans = append(s.Plans, p)
		s.openPlans[PlanKey(e)] = p
		s.planEntries[e.PlanID]++
	case sessionfmt.EventPlanStepStart:
		p := s.plan(e)
		a := &Attempt{StepID: e.StepID, Kind: e.Kind, Attempt: e.Attempt, Dispatched: true}
		p.Attempts = append(p.Attempts, a)
		k := attemptKey{e.StepID, e.Attempt}
		if p.running == nil {
			p.running = map[attemptKey]*Attempt{}
		}
		if p.running[k] != nil {
			s.note(e, "a second plan_step_start for step %s attempt %d", quote(e.StepID), e.Attempt)
		}
		p.running[k] = a
	case sessionfmt.EventPlanStep:
		s.settle(s.plan(e), e)
	case sessionfmt.EventPlanEnd:
		p := s.plan(e)
		p.Ended, p.Outcome, p.FailedStep = true, e.Outcome, e.FailedStep
		p.Succeeded, p.Failed, p.Skipped = e.Succeeded, e.Failed, e.Skipped
		delete(s.openPlans, PlanKey(e))
	case sessionfmt.EventProtectedPathDenied, sessionfmt.EventCallDenied:
		p := s.plan(e)
		p.Denials = append(p.Denials, *e)
	case sessionfmt.EventDelegationStart:
		d := s.delegation(e)
		d.Started = true
		d.PlanID, d.StepID, d.Capsule, d.Version, d.PID = e.PlanID, e.StepID, e.Capsule, e.Version, e.PID
	case sessionfmt.EventDelegation:
		d := s.delegation(e)
		if d.Ended {
			s.note(e, "a second delegation line for %s", quote(e.DelegationID))
		}
		d.Ended, d.Outcome, d.Reason = true, e.Outcome, e.Reason
		if d.PlanID == "" {
			d.PlanID, d.StepID = e.PlanID, e.StepID
		}
	case sessionfmt.EventTaskCanceled:
		t := s.task(e.TaskID)
		t.Canceled, t.DelegationIDs = true, e.DelegationIDs
	case sessionfmt.EventTaskEnd:
		t := s.task(e.TaskID)
		t.Ended, t.Outcome = true, e.Outcome
	}
}

// openRun returns the run a session_end of plan n closes: the newest run
// not yet ended that started with plan n, else (or for n 0) the newest
// run not yet ended whose session_start has no plan number (a
// sub-capsule's session begins before its plan is numbered; old traces);
// nil when there is none. Runs sharing the session end in any order.
func (s *Session) openRun(n int) *Run {
	if n > 0 {
		for i := len(s.Runs) - 1; i >= 0; i-- {
			if r := &s.Runs[i]; !r.Ended && r.plan == n {
				return r
			}
		}
	}
	for i := len(s.Runs) - 1; i >= 0; i-- {
		if r := &s.Runs[i]; !r.Ended && r.plan == 0 {
			return r
		}
		if n == 0 {
			break // as before plan numbers: the newest run only
		}
	}
	return nil
}

// plan returns the open plan e belongs to, making one (with a note) when
// the trace has no plan_start for it.
func (s *Session) plan(e *Event) *Plan {
	if p := s.openPlans[PlanKey(e)]; p != nil {
		return p
	}
	s.note(e, "%s for plan %s, which has no open plan_start; shown under a plan of its own", e.Event, quote(e.PlanID))
	p := &Plan{ID: e.PlanID}
	s.Plans = append(s.Plans, p)
	s.openPlans[PlanKey(e)] = p
	s.planEntries[e.PlanID]++
	return p
}

// settle records a plan_step: the end of the dispatch with the same step
// and attempt, or a step settled without dispatch.
func (s *Session) settle(p *Plan, e *Event) {
	var a *Attempt
	if e.Attempt > 0 && !e.Reused {
		k := attemptKey{e.StepID, e.Attempt}
		a = p.running[k]
		delete(p.running, k)
		if a == nil {
			s.note(e, "plan_step for step %s attempt %d, which has no plan_step_start", quote(e.StepID), e.Attempt)
		}
	}
	if a == nil {
		a = &Attempt{StepID: e.StepID, Attempt: e.Attempt}
		p.Attempts = append(p.Attempts, a)
	}
	a.Settled, a.Status, a.Error, a.Reused = true, e.Status, e.Error, e.Reused
	a.Duration = time.Duration(e.DurationMS) * time.Millisecond
}

func (s *Session) delegation(e *Event) *Delegation {
	d := s.delegationByID[e.DelegationID]
	if d == nil {
		d = &Delegation{ID: e.DelegationID, InTrace: true}
		s.delegationByID[e.DelegationID] = d
		s.Delegations = append(s.Delegations, d)
	}
	return d
}

func (s *Session) task(id string) *Task {
	t := s.taskByID[id]
	if t == nil {
		t = &Task{ID: id}
		s.taskByID[id] = t
		s.Tasks = append(s.Tasks, t)
	}
	return t
}
