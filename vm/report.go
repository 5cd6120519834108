package vm

import "fmt"

// Status is how a step settled.
type Status uint8

// The step statuses. The zero Status means "not settled".
const (
	StatusSuccess Status = iota + 1
	StatusFailed
	StatusSkipped
)

var statusNames = [...]string{"", "success", "failed", "skipped"}

// String returns "success", "failed" or "skipped" ("" for the zero Status),
// which is also what $id.status reads (S8).
func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return "invalid"
}

// MarshalText implements encoding.TextMarshaler.
func (s Status) MarshalText() ([]byte, error) {
	if s < StatusSuccess || s > StatusSkipped {
		return nil, fmt.Errorf("vm: invalid status %d", s)
	}
	return []byte(s.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (s *Status) UnmarshalText(b []byte) error {
	for i := StatusSuccess; i <= StatusSkipped; i++ {
		if string(b) == i.String() {
			*s = i
			return nil
		}
	}
	return fmt.Errorf("vm: invalid status %q", b)
}

// The errors of steps settled by a cancel (docs/plans.md, "Cancel"; S22).
const (
	// CanceledBeforeRun is the error of a step that had not been
	// dispatched when the cancel landed, including one waiting for the
	// tool lane; it settles skipped.
	CanceledBeforeRun = "the task running this plan was cancelled before this step ran"
	// CapsuleEnded is the error of a capsule step whose sub-capsule was
	// running, or being started, when the cancel landed; it settles
	// failed and is not retried.
	CapsuleEnded = "the task running this plan was cancelled; this step's sub-capsule was ended with it"
	// ToolEnded is the error of a tool step whose call was running when
	// the cancel landed, was still running Options.ToolGrace later (or at
	// Options.Abort), and then ended with an error once its context was
	// cancelled: a call blocked on a tool that never answers cannot hold a
	// cancelled plan. It settles failed and is not retried.
	ToolEnded = "the task running this plan was cancelled; this step's tool call was ended with it"
)

// Report is what submit-plan returns: the report object of docs/plans.md,
// "The report" (its JSON field names are that section's) and, outside the JSON,
// the summary and the failed-result flag.
type Report struct {
	PlanID    string `json:"plan_id"`
	Completed bool   `json:"completed"`
	Canceled  bool   `json:"canceled"`
	// FailedStep is the step whose final failure stopped the plan (S18),
	// nil when none did or the plan was cancelled.
	FailedStep *string `json:"failed_step"`
	// Steps holds one entry per settled step, in the order they settled.
	Steps []StepReport `json:"steps"`

	// Outcome is plan_end's outcome.
	Outcome Outcome `json:"-"`
	// Failed is true when the plan did not complete: the report goes back
	// to the model as a failed tool result.
	Failed bool `json:"-"`
	// Summary is the one line of S21, e.g.
	// "Plan 'x': 3 steps, 2 succeeded, 1 failed, 0 skipped".
	Summary string `json:"-"`
	// Succeeded, FailedSteps and Skipped count Steps by status.
	Succeeded, FailedSteps, Skipped int `json:"-"`
}

// StepReport is one entry of the report's steps.
type StepReport struct {
	StepID string `json:"step_id"`
	Status Status `json:"status"`
	// Output is the step's output text, nil when it produced none (an
	// empty output is none).
	Output *string `json:"output"`
	// Error is why the step failed, nil otherwise. A step skipped by
	// on_error: skip keeps its error (S18); one skipped by a cancel
	// carries CanceledBeforeRun.
	Error *string `json:"error"`
}

// summary formats S21's line.
func summary(r *Report, declared int) string {
	head := fmt.Sprintf("Plan '%s':", r.PlanID)
	if r.Canceled {
		head = fmt.Sprintf("Plan '%s' was cancelled:", r.PlanID)
	}
	return fmt.Sprintf("%s %d steps, %d succeeded, %d failed, %d skipped", head, declared, r.Succeeded, r.FailedSteps, r.Skipped)
}
