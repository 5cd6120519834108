package vm

import (
	"strconv"
	"time"

	"github.com/planc/planc/internal/jsonstr"
	"github.com/planc/planc/ir"
)

// EventKind names a trace event.
type EventKind uint8

// The trace events a run writes (docs/trace.md).
const (
	// PlanStart opens the run: plan_id, plan_file, steps, and sha256 and
	// redrive when set.
	PlanStart EventKind = iota + 1
	// PlanStepStart is one dispatch: plan_id, step_id, kind, attempt.
	PlanStepStart
	// PlanStep is one attempt's end, or the settling of a step that was
	// not dispatched (attempt 0), or of a step a redrive reuses: plan_id,
	// step_id, status, attempt, duration_ms, error, and reused and
	// output_bytes for a reused step.
	PlanStep
	// PlanEnd closes the run: plan_id, outcome, failed_step, succeeded,
	// failed, skipped, and redrive on a redrive.
	PlanEnd
)

var eventNames = [...]string{"invalid", "plan_start", "plan_step_start", "plan_step", "plan_end"}

// String returns the event's name as trace.jsonl writes it.
func (k EventKind) String() string {
	if int(k) < len(eventNames) {
		return eventNames[k]
	}
	return "invalid"
}

// Outcome is how a run ended (plan_end's outcome).
type Outcome uint8

// The outcomes.
const (
	// Completed: no step stopped the plan and it was not cancelled (S18).
	Completed Outcome = iota + 1
	// Failed: a step's final failure under on_error fail stopped the plan.
	Failed
	// Canceled: the plan's task was cancelled.
	Canceled
)

var outcomeNames = [...]string{"invalid", "completed", "failed", "canceled"}

// String returns "completed", "failed" or "canceled".
func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return "invalid"
}

// Event is one trace event. Only the fields of its Kind are meaningful;
// AppendFields writes exactly those, under docs/trace.md's names. Text fields
// that are "" are written as null where the trace allows null (plan_file,
// error, failed_step).
type Event struct {
	// The one-byte fields come first, together, so that an Event, built
	// and passed by value twice a step, is 168 bytes and not 200.

	Kind EventKind
	// StepKind is plan_step_start's kind.
	StepKind ir.Kind
	// Status is plan_step's status: the attempt's, and for the last
	// attempt the step's settled status.
	Status Status
	// Final marks the plan_step that settles its step: false for an
	// attempt's end that a retry follows (S19), true for every other
	// plan_step. Observers read it instead of comparing Attempt with the
	// step's retries, which a redrive's continued attempt numbers (S26)
	// would fool. It is not written to the trace.
	Final bool
	// Stopped marks the final plan_step of the step whose failure under
	// on_error fail stopped the plan (S18, failed_step): after it nothing
	// more is dispatched. It is not written to the trace.
	Stopped bool
	// Reused marks the plan_step of a step a redrive reused instead of
	// dispatching it (S28): its status, attempt and error are the recorded
	// ones, and OutputBytes is the length of its recorded output.
	Reused bool
	// Outcome is plan_end's.
	Outcome Outcome

	PlanID string
	// PlanFile is plan_start's plan_file (Options.PlanFile).
	PlanFile string
	// Steps is plan_start's step count.
	Steps int
	// SHA256 is plan_start's sha256 (Options.PlanSHA256), left out when "".
	SHA256 string
	// Redrive is plan_start's and plan_end's redrive (Options.Redrive),
	// left out when 0 (S28).
	Redrive int
	// StepID names the step of plan_step_start and plan_step.
	StepID string
	// Attempt numbers the dispatch from 1 (S19); 0 in a plan_step for a
	// step settled without being dispatched.
	Attempt int
	// Duration is plan_step's duration_ms: how long the attempt ran.
	Duration time.Duration
	// Error is plan_step's error, "" for none.
	Error string
	// OutputBytes is a reused step's recorded output length (Reused).
	OutputBytes int
	// FailedStep ("" for none) and the counts are plan_end's.
	FailedStep                 string
	Succeeded, Failed, Skipped int
}

// AppendFields appends the event's members to dst as JSON object members
// without braces, starting with "event": a host writing trace.jsonl wraps
// them with its own ts and session, e.g.
// `{"ts":"…","session":"…",` + fields + `}`.
func (e *Event) AppendFields(dst []byte) []byte {
	dst = append(dst, `"event":"`...)
	dst = append(dst, e.Kind.String()...)
	dst = append(dst, `","plan_id":`...)
	dst = jsonstr.Append(dst, e.PlanID)
	switch e.Kind {
	case PlanStart:
		dst = append(dst, `,"plan_file":`...)
		dst = appendNullable(dst, e.PlanFile)
		dst = append(dst, `,"steps":`...)
		dst = strconv.AppendInt(dst, int64(e.Steps), 10)
		if e.SHA256 != "" {
			dst = append(dst, `,"sha256":`...)
			dst = jsonstr.Append(dst, e.SHA256)
		}
		dst = appendRedrive(dst, e.Redrive)
	case PlanStepStart:
		dst = append(dst, `,"step_id":`...)
		dst = jsonstr.Append(dst, e.StepID)
		dst = append(dst, `,"kind":"`...)
		dst = append(dst, e.StepKind.String()...)
		dst = append(dst, `","attempt":`...)
		dst = strconv.AppendInt(dst, int64(e.Attempt), 10)
	case PlanStep:
		dst = append(dst, `,"step_id":`...)
		dst = jsonstr.Append(dst, e.StepID)
		dst = append(dst, `,"status":"`...)
		dst = append(dst, e.Status.String()...)
		dst = append(dst, `","attempt":`...)
		dst = strconv.AppendInt(dst, int64(e.Attempt), 10)
		dst = append(dst, `,"duration_ms":`...)
		dst = strconv.AppendInt(dst, e.Duration.Milliseconds(), 10)
		dst = append(dst, `,"error":`...)
		dst = appendNullable(dst, e.Error)
		if e.Reused {
			dst = append(dst, `,"reused":true,"output_bytes":`...)
			dst = strconv.AppendInt(dst, int64(e.OutputBytes), 10)
		}
	case PlanEnd:
		dst = append(dst, `,"outcome":"`...)
		dst = append(dst, e.Outcome.String()...)
		dst = append(dst, `","failed_step":`...)
		dst = appendNullable(dst, e.FailedStep)
		dst = append(dst, `,"succeeded":`...)
		dst = strconv.AppendInt(dst, int64(e.Succeeded), 10)
		dst = append(dst, `,"failed":`...)
		dst = strconv.AppendInt(dst, int64(e.Failed), 10)
		dst = append(dst, `,"skipped":`...)
		dst = strconv.AppendInt(dst, int64(e.Skipped), 10)
		dst = appendRedrive(dst, e.Redrive)
	}
	return dst
}

// MarshalJSON returns the event as one JSON object (AppendFields in
// braces).
func (e Event) MarshalJSON() ([]byte, error) {
	b := append(make([]byte, 0, 128), '{')
	b = e.AppendFields(b)
	return append(b, '}'), nil
}

func appendNullable(dst []byte, s string) []byte {
	if s == "" {
		return append(dst, "null"...)
	}
	return jsonstr.Append(dst, s)
}
