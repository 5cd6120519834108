package tracefile

import (
	"encoding/json"
	"path/filepath"

	"github.com/planc/planc/internal/regfile"
	"github.com/planc/planc/internal/sessionfmt"
)

// StatusNotRun is the status `planc trace steps` and `show` give a step
// its plan declares but that never settled in a run that ended: the plan
// stopped before it (S18), or was cancelled.
const StatusNotRun = "not run"

// addNotRun gives each ended plan run one Attempt (NotRun, attempt 0) for
// every step of its plan file that the run never settled, in the plan's
// order, after the attempts the trace has. A plan file that cannot be read
// adds none; the counts still tell (NotRun).
func (s *Session) addNotRun() {
	for _, p := range s.Plans {
		if !p.Ended || p.NotRun() == 0 {
			continue
		}
		n, ok := sessionfmt.PlanNumber(p.File)
		if !ok {
			continue
		}
		var doc struct {
			Steps []struct {
				ID string `json:"id"`
			} `json:"steps"`
		}
		b, err := regfile.ReadFile(filepath.Join(s.Dir, filepath.FromSlash(sessionfmt.PlanFile(n))))
		if err != nil || json.Unmarshal(b, &doc) != nil {
			continue
		}
		seen := map[string]bool{}
		for _, a := range p.Attempts {
			seen[a.StepID] = true
		}
		for _, st := range doc.Steps {
			if !seen[st.ID] {
				seen[st.ID] = true
				p.Attempts = append(p.Attempts, &Attempt{StepID: st.ID, Status: StatusNotRun, Settled: true, NotRun: true})
			}
		}
	}
}

// NotRun returns how many of the steps an ended plan run declares it never
// settled (plan_start's steps less plan_end's counts); 0 before plan_end.
func (p *Plan) NotRun() int {
	if !p.Ended || !p.Started {
		return 0
	}
	return max(0, p.StepCount-p.Succeeded-p.Failed-p.Skipped)
}
