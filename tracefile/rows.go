package tracefile

import (
	"strconv"

	"github.com/planc/planc/internal/sessionfmt"
)

// AttemptRow is one attempt's STEP, ATTEMPT, STATUS, DURATION and ERROR.
func (s *Session) AttemptRow(p *Plan, a *Attempt) []string {
	attempt, dur, status := "-", "-", a.Status
	if a.Attempt > 0 {
		attempt = strconv.Itoa(a.Attempt)
	}
	switch {
	case a.Settled && a.Dispatched:
		dur = Duration(a.Duration)
	case a.Settled:
	case p.Ended || s.Over() || s.runGone(p):
		// Dispatched, never settled, and nothing more will be written.
		status = "unsettled"
	default:
		status = "running"
	}
	if status == "" {
		status = "?"
	}
	if a.Reused {
		status += " (reused)"
	}
	return []string{a.StepID, attempt, status, dur, a.Error}
}

// Over reports whether the session's last run has ended: nothing more
// will be written to its trace.
func (s *Session) Over() bool {
	_, ok := s.ExitStatus()
	return ok || s.SpawnerEnded
}

// PlanHeld, when set, tells whether a planc holds the lock of plan n of
// the session directory dir (S27), as host/session.PlanHeld does; planc
// sets it. A run without its plan_end whose plan's lock nobody holds was
// left by a planc that died: its attempts without a plan_step are shown
// unsettled, not running. nil leaves that to the trace alone.
var PlanHeld func(dir string, n int) (bool, error)

// runGone reports whether run p of a plan is over though its trace does
// not say so: a later run of the same plan started, or nobody holds the
// plan's lock (PlanHeld).
func (s *Session) runGone(p *Plan) bool {
	n, ok := sessionfmt.PlanNumber(p.File)
	if !ok {
		return false
	}
	if runs := s.PlanRuns(n); len(runs) > 0 && runs[len(runs)-1] != p {
		return true
	}
	if PlanHeld == nil || s.Dir == "" {
		return false
	}
	if s.held == nil {
		s.held = map[int]bool{}
	}
	held, seen := s.held[n]
	if !seen {
		h, err := PlanHeld(s.Dir, n)
		held = h || err != nil // cannot tell: as the trace says
		s.held[n] = held
	}
	return !held
}
