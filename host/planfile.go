package host

import (
	"fmt"
	"strconv"

	"github.com/planc/planc/host/session"
	"github.com/planc/planc/parser"
	"github.com/planc/planc/vm"
)

// What a run keeps of its plan besides the trace: the plan file, the
// plan's lock while it runs, and the report (S24, S27); a redrive's side
// is redrive.go.

// writePlan writes the checked plan to the session's next plan file for
// a first run, sets task.Plan, takes the plan's lock and reads the file
// back. The caller unlocks the lock.
func (r *run) writePlan(task *session.Task) (*session.PlanLock, error) {
	pf, err := task.Session.WritePlan(r.checked.Source())
	if err != nil {
		return nil, err
	}
	task.Plan = pf
	// Only a --resume refused at once can hold a new plan's lock.
	lock, err := task.Session.LockPlan(pf.N, true)
	if err != nil {
		return nil, err
	}
	// What runs is what is read back from the plan file. ReadPlan refuses
	// a file whose SHA-256 is not that of the bytes written, so the file
	// holds exactly the bytes check accepted: the checked plan is their
	// parse, and parsing and checking them a second time would find the
	// same.
	if _, err := task.Session.ReadPlan(pf, parser.DefaultLimits().MaxBytes); err != nil {
		lock.Unlock()
		return nil, &RefusedError{Msg: err.Error()}
	}
	return lock, nil
}

// notice hands a one-line note to Config.Notice, if any.
func (r *run) notice(s string) {
	if r.cfg.Notice != nil {
		r.cfg.Notice(s)
	}
}

// keepReport keeps the plan's report exactly as returned (S24).
func keepReport(task *session.Task, rep *vm.Report) error {
	b, err := rep.JSON()
	if err == nil {
		err = task.Session.KeepReport(task.Plan.N, b)
	}
	if err != nil {
		return fmt.Errorf("keep the report of plan %d: %w", task.Plan.N, err)
	}
	return nil
}

// scopeName names the cgroup scope of a run of the task's plan:
// planc-<session>-<n>, and planc-<session>-<n>-redrive-<k> for redrive k,
// so that a redrive never needs the name of a scope a planc that died
// left behind.
func scopeName(task *session.Task, redrive int) string {
	name := "planc-" + task.Session.Info.ID + "-" + strconv.Itoa(task.Plan.N)
	if redrive > 0 {
		name += "-redrive-" + strconv.Itoa(redrive)
	}
	return name
}
