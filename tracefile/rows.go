package tracefile

import "strconv"

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
	case p.Ended || s.Over():
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
