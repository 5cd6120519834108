package session

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"

	"github.com/planc/planc/internal/jsonstr"
	"github.com/planc/planc/internal/sessionfmt"
)

// DelegationOutcome is a delegation line's outcome.
type DelegationOutcome string

// The outcomes of a delegation line.
const (
	DelegationCompleted  DelegationOutcome = "completed"  // the sub-capsule answered
	DelegationFailed     DelegationOutcome = "failed"     // it did not complete
	DelegationTerminated DelegationOutcome = "terminated" // its parent ended it
)

// TaskOutcome is task_end's outcome.
type TaskOutcome string

// TaskEndCanceled is the outcome of task_end: the task was cancelled.
const TaskEndCanceled TaskOutcome = "canceled"

// ReasonTaskCanceled is the reason of the delegation line of a
// sub-capsule ended because the task running its plan was cancelled
// (docs/capsules.md, "Cancel", item 4).
const ReasonTaskCanceled = "the delegating task was cancelled"

// LauncherEnded is the completion.json of a delegation the parent ended
// (docs/capsules.md, "Cancel", item 2).
var LauncherEnded = sessionfmt.Completion{Status: "terminated", ReportedBy: "launcher", Detail: "the parent ended this delegation"}

// WriteCompletion writes c as dir/completion.json, whole or not at all.
func WriteCompletion(dir string, c sessionfmt.Completion) error {
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".completion-*.json")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(append(b, '\n'))
	if err := tmp.Close(); werr == nil {
		werr = err
	}
	if werr == nil {
		werr = os.Chmod(tmp.Name(), 0o644)
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), filepath.Join(dir, sessionfmt.CompletionFile))
	}
	if werr != nil {
		os.Remove(tmp.Name())
	}
	return werr
}

// DelegationStart writes delegation_start: the sub-capsule of a capsule
// step is up, as process pid.
func (t *Trace) DelegationStart(planID, stepID, delegationID, capsule, version string, pid int) {
	f := appendStr(nil, "plan_id", planID)
	f = appendStr(f, "step_id", stepID)
	f = appendStr(f, "delegation_id", delegationID)
	f = appendStr(f, "capsule", capsule)
	f = appendStr(f, "version", version)
	f = append(f, `,"pid":`...)
	f = strconv.AppendInt(f, int64(pid), 10)
	t.own("delegation_start", f, false)
}

// Delegation writes the terminal delegation line; reason "" is written as
// null.
func (t *Trace) Delegation(planID, stepID, delegationID string, outcome DelegationOutcome, reason string) {
	f := appendStr(nil, "plan_id", planID)
	f = appendStr(f, "step_id", stepID)
	f = appendStr(f, "delegation_id", delegationID)
	f = appendStr(f, "outcome", string(outcome))
	f = appendNullable(f, "reason", reason)
	t.own("delegation", f, false)
}

// TaskCanceled writes task_canceled: the task taskID was cancelled, ending
// the delegations ids (an empty list when it ended none).
func (t *Trace) TaskCanceled(taskID string, ids []string) {
	f := appendStr(nil, "task_id", taskID)
	f = append(f, `,"delegation_ids":[`...)
	for i, id := range ids {
		if i > 0 {
			f = append(f, ',')
		}
		f = jsonstr.Append(f, id)
	}
	f = append(f, ']')
	t.own("task_canceled", f, false)
}

// TaskEnd writes task_end with the task's outcome.
func (t *Trace) TaskEnd(taskID string, outcome TaskOutcome) {
	f := appendStr(nil, "task_id", taskID)
	f = appendStr(f, "outcome", string(outcome))
	t.own("task_end", f, false)
}

// ParentEnded writes spawner_ended, synced: a sub-capsule's lifeline
// closed, so the parent that spawned it is gone.
func (t *Trace) ParentEnded() {
	t.own("spawner_ended", nil, true)
}
