package sessionfmt

// IDTimeLayout is the UTC time a session id starts with (time.Format's
// layout): a session id is <IDTimeLayout>-<6 hex>, e.g.
// 20250102T150405Z-a1b2c3, and names its session directory.
const IDTimeLayout = "20060102T150405Z"

// The names of a session directory's files (docs/trace.md, "What a run
// keeps beside the trace"), for the host that writes them (host/session)
// and for the reader (tracefile).
const (
	TraceFile      = "trace.jsonl"
	SessionFile    = "session.json"
	DelegationsDir = "delegations"
	CompletionFile = "completion.json"
	// NotesFile is notes.md, which the built-in notes tool appends to.
	NotesFile = "notes.md"
)

// SessionInfo is session.json: who the session is (docs/running.md). The run
// that makes a session writes it once (host/session.Create); a run that
// reuses the session, and Open, read it.
type SessionInfo struct {
	// ID names the session in every trace line and in the scope's name:
	// <UTC time>-<6 hex>, e.g. 20250102T150405Z-a1b2c3.
	ID string `json:"session"`
	// Capsule and Version are the capsule's manifest name and version.
	Capsule string `json:"capsule"`
	Version string `json:"version"`
	// Started is when the session was made, RFC 3339 in UTC.
	Started string `json:"started"`
	// SpawnedBy and DelegationID name the parent session and delegation of
	// a sub-capsule's session; null at top level.
	SpawnedBy    *string `json:"spawned_by"`
	DelegationID *string `json:"delegation_id"`
}

// Completion is a delegation directory's completion.json, written by the
// launcher when it ended the delegation (docs/capsules.md).
type Completion struct {
	Status     string `json:"status"`
	ReportedBy string `json:"reported_by"`
	Detail     string `json:"detail"`
}

// The events of the trace (docs/trace.md).
const (
	EventSessionStart        = "session_start"
	EventSessionEnd          = "session_end"
	EventSpawnerEnded        = "spawner_ended"
	EventPlanStart           = "plan_start"
	EventPlanStepStart       = "plan_step_start"
	EventPlanStep            = "plan_step"
	EventPlanEnd             = "plan_end"
	EventDelegationStart     = "delegation_start"
	EventDelegation          = "delegation"
	EventTaskCanceled        = "task_canceled"
	EventTaskEnd             = "task_end"
	EventProtectedPathDenied = "protected_path_denied"
	EventCallDenied          = "call_denied"
	EventTraceRepaired       = "trace_repaired"
)

// KnownEvent reports whether name is an event of the trace (docs/trace.md).
func KnownEvent(name string) bool {
	switch name {
	case EventSessionStart, EventSessionEnd, EventSpawnerEnded, EventPlanStart, EventPlanStepStart, EventPlanStep, EventPlanEnd,
		EventDelegationStart, EventDelegation, EventTaskCanceled, EventTaskEnd, EventProtectedPathDenied, EventCallDenied,
		EventTraceRepaired:
		return true
	}
	return false
}

// The statuses a step settles with, as plan_step lines and reports spell
// them (docs/trace.md).
const (
	StatusSuccess = "success"
	StatusFailed  = "failed"
	StatusSkipped = "skipped"
)

// StepStatuses are the statuses a step settles with.
var StepStatuses = []string{StatusSuccess, StatusFailed, StatusSkipped}
