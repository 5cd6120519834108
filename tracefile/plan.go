package tracefile

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/planc/planc/internal/regfile"
	"github.com/planc/planc/internal/sessionfmt"
)

// PlanRecord is what a session holds about plan n across all its runs —
// the first run and every redrive that started — read back for a redrive
// (S25–S28): ReadPlan makes it from trace.jsonl, Prior turns it into the
// VM's input. The host decides with it whether the plan may be redriven
// (Completed, VerifyPlan) and numbers the redrive (Redrives+1).
type PlanRecord struct {
	// N is the plan's number in the session; File is sessionfmt.PlanFile(N).
	N    int
	File string
	// Dir is the session directory it was read from.
	Dir string
	// ID is the plan's id, from its first plan_start.
	ID string
	// SHA256 is the plan file's SHA-256 (hex) as the first plan_start
	// recorded it; "" in a trace written before it was recorded.
	SHA256 string
	// Runs counts the plan_start lines of plan N: 1 + the redrives that
	// started.
	Runs int
	// Redrives is the highest redrive number recorded (plan_start's
	// redrive, or Runs-1 when that is higher, so a redrive whose plan_start
	// was lost still counts): the next redrive is Redrives+1.
	Redrives int
	// Ended is set when the last run has its plan_end; Outcome is then that
	// line's outcome (completed, failed, canceled). A last run without
	// plan_end was cut short: planc died (S27).
	Ended   bool
	Outcome string
	// Steps holds one record per step id the plan's lines name, in the
	// order first seen.
	Steps []StepRecord
	// Notes are the trace's notes (torn lines first of all: Note.Skipped)
	// and what did not fit.
	Notes []Note

	byID     map[string]int // step id → index in Steps
	lastStep int            // the index in Steps step returned last
}

// StepRecord is what the trace holds about one step of a plan, over every
// run of it.
type StepRecord struct {
	ID string
	// Status and Error are those of the step's last plan_step line: its
	// last settled status ("" when it never settled). A success is always
	// final: a successful attempt is never retried, and a redrive reuses it.
	Status string
	Error  string
	// Attempt is the highest attempt the trace holds for the step, from its
	// plan_step_start and plan_step lines; 0 when it was never dispatched.
	Attempt int
	// SettledAttempt is the attempt of that last plan_step line: the one
	// whose kept output a success carries (0 when settled without a
	// dispatch).
	SettledAttempt int
	// Reused is set when that last plan_step is a redrive's reuse line.
	Reused bool
	// Dispatched is set when the trace holds a plan_step_start of it.
	Dispatched bool
	// Unsettled is set when its last dispatch has no plan_step: it was
	// running when its planc died, and may have run partly (S27).
	Unsettled bool

	lastStart int // the attempt of its last plan_step_start
}

// ErrNotStarted is ReadPlan's error for a trace that holds no plan_start
// of the plan: it never started (or the trace lost it).
var ErrNotStarted = errors.New("no plan_start")

// ReadPlan reads plan n's record from the session directory dir: its
// trace.jsonl, whose torn and unreadable lines become Notes. The error is
// for a trace that cannot be read at all, or that holds no plan_start of
// plan n (ErrNotStarted).
func ReadPlan(dir string, n int) (*PlanRecord, error) {
	f, err := regfile.Open(filepath.Join(dir, sessionfmt.TraceFile))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := readPlan(f, n)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, sessionfmt.TraceFile), err)
	}
	p.Dir = dir
	return p, nil
}

// readPlan reads plan n's record from a trace stream. A line belongs to
// plan n when it carries the number n, or, without a number (traces
// written before lines carried it), when its plan_id is that of the newest
// plan_start not yet ended whose plan_file is sessionfmt.PlanFile(n), as
// FromEvents groups lines.
func readPlan(r io.Reader, n int) (*PlanRecord, error) {
	p := &PlanRecord{N: n, File: sessionfmt.PlanFile(n), byID: map[string]int{}}
	open := map[string]int{} // PlanKey → number of the plan open under it
	notes, err := scan(r, &lineDecoder{lean: true}, func(e *Event) {
		switch e.Event {
		case sessionfmt.EventPlanStart:
			num, ok := sessionfmt.PlanNumber(e.PlanFile)
			if !ok {
				num = -1
			}
			open[PlanKey(e)] = num
			if num != n {
				return
			}
			if p.Runs == 0 {
				p.ID, p.SHA256 = e.PlanID, e.SHA256
				hint := min(max(e.Steps, 0), 1<<20)
				p.Steps, p.byID = make([]StepRecord, 0, hint), make(map[string]int, hint)
			} else if e.SHA256 != p.SHA256 && e.SHA256 != "" {
				p.note(e, "plan_start records SHA-256 %s, the first run %s", e.SHA256, cmp.Or(p.SHA256, "none"))
			}
			p.Runs++
			p.Redrives = max(p.Redrives, e.Redrive, p.Runs-1)
			p.Ended, p.Outcome = false, ""
		case sessionfmt.EventPlanStepStart, sessionfmt.EventPlanStep, sessionfmt.EventPlanEnd:
			if num, ok := open[PlanKey(e)]; !ok || num != n {
				return
			}
			if e.Event == sessionfmt.EventPlanEnd {
				p.Ended, p.Outcome = true, e.Outcome
				delete(open, PlanKey(e))
				return
			}
			s := p.step(e.StepID)
			s.Attempt = max(s.Attempt, e.Attempt)
			if e.Event == sessionfmt.EventPlanStepStart {
				s.Dispatched, s.Unsettled, s.lastStart = true, true, e.Attempt
				return
			}
			s.Status, s.Error, s.SettledAttempt, s.Reused = e.Status, e.Error, e.Attempt, e.Reused
			if e.Attempt == s.lastStart {
				s.Unsettled = false
			}
		}
	})
	p.Notes = append(notes, p.Notes...)
	if err != nil {
		return nil, err
	}
	if p.Runs == 0 {
		return nil, fmt.Errorf("%w of plan %d (%s)", ErrNotStarted, n, p.File)
	}
	return p, nil
}

func (p *PlanRecord) note(e *Event, format string, args ...any) {
	p.Notes = append(p.Notes, Note{Line: e.Line, Text: fmt.Sprintf(format, args...)})
}

// step returns the record of step id, made on first sight.
func (p *PlanRecord) step(id string) *StepRecord {
	// Most lines are of the step the line before named (a plan_step after
	// its plan_step_start): that one is tried before the map.
	if i := p.lastStep; i < len(p.Steps) && p.Steps[i].ID == id {
		return &p.Steps[i]
	}
	i, ok := p.byID[id]
	p.lastStep = i
	if !ok {
		p.lastStep = len(p.Steps)
		i = len(p.Steps)
		p.byID[id] = i
		p.Steps = append(p.Steps, StepRecord{ID: id})
	}
	return &p.Steps[i]
}

// Step returns the record of step id, nil when the trace names no such
// step of the plan.
func (p *PlanRecord) Step(id string) *StepRecord {
	if i, ok := p.byID[id]; ok {
		return &p.Steps[i]
	}
	return nil
}

// Completed reports whether the plan's last run completed: such a plan is
// not redriven (S27, "nothing to resume: plan N completed").
func (p *PlanRecord) Completed() bool { return p.Ended && p.Outcome == "completed" }

// VerifyPlan holds the plan file's bytes to the SHA-256 its first
// plan_start recorded (S25). A trace that recorded none cannot vouch for
// the file, and is an error too.
func (p *PlanRecord) VerifyPlan(data []byte) error {
	if p.SHA256 == "" {
		return fmt.Errorf("plan %d's plan_start records no SHA-256 (a trace from before planc kept it), so %s cannot be checked; run it as a new plan", p.N, p.File)
	}
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != p.SHA256 {
		return fmt.Errorf("%s has SHA-256 %s, but plan %d ran with %s: the file changed since; run it as a new plan", p.File, got, p.N, p.SHA256)
	}
	return nil
}
