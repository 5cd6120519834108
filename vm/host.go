package vm

import (
	"context"
	"encoding/json"

	"github.com/planc/planc/ir"
)

// Host dispatches a plan's steps and receives its trace. Run calls
// CallTool, RunShell and SpawnCapsule from goroutines of its own, at most
// one CallTool at a time (semantics S17) and any number of the others
// unless Options.MaxParallel limits them; it calls Refuse and Trace one at a
// time, in order, never concurrently, from the goroutine that called Run or
// from one of its own between two dispatches (never from inside a
// dispatch method).
//
// An error returned by a dispatch method fails that attempt of the step and
// its text becomes the step's error; a panic in any method is recovered and
// fails the step the same way. Neither ever stops Run.
type Host interface {
	// Refuse is asked once before a tool or shell step's first dispatch
	// (docs/plans.md, "Step refusals"). A non-nil error refuses the
	// step: it settles failed with the error's text, nothing is dispatched,
	// retries do not apply and on_error does. The host writes its own
	// trace line for the refusal (protected_path_denied, call_denied).
	// Capsule steps are never put to it. It must not block for long: the
	// scheduler waits for it.
	Refuse(ctx context.Context, c Call) error
	// CallTool runs one attempt of a tool step and returns the tool's
	// result text. A failing tool result is an error (whose text is the
	// step's error); the returned text is kept as the step's output even
	// then. Its context is not cancelled when Run's is: a running call
	// settles with its own result, unless it is still running
	// Options.ToolGrace after the cancel, when its context is cancelled;
	// the host must then end the call and return, and Run settles a call
	// that then fails with ToolEnded (docs/plans.md, "Cancel").
	CallTool(ctx context.Context, c Call) (string, error)
	// RunShell runs one attempt of a shell step: c.Step.Argv, whose first
	// word the host resolves on PATH (S14). It returns standard output and
	// standard error merged, and an error for a non-zero exit, a signal or
	// the host's bound (S20). Its context is not cancelled when Run's is
	// (S22).
	RunShell(ctx context.Context, c Call) (string, error)
	// SpawnCapsule runs one attempt of a capsule step: the sub-capsule
	// c.Step.Target with the task text c.Objective, returning its answer.
	// Its context is cancelled when Run's is; the host must then end the
	// sub-capsule (SIGTERM, then SIGKILL 5 s later; as soon as it is up if
	// it is still being approved or started) and return. Run settles such
	// a step failed with CapsuleEnded, whatever the host returns, unless
	// the host called CapsuleExited(ctx) first: the sub-capsule had exited
	// on its own before the cancel reached it, and the attempt settles
	// with the result the host returns.
	SpawnCapsule(ctx context.Context, c Call) (string, error)
	// Trace receives one trace event. Events come in the order docs/plans.md
	// ("In the trace") and docs/trace.md require; the host adds ts and session
	// when it writes them (Event.AppendFields).
	Trace(e Event)
}

// WholeOutputs is a Host that cuts long outputs (S20). The text a
// dispatch returns, or a Prior's Output, is what the report carries; a
// reference or a condition reads the step's whole output through
// WholeOutput instead. A Host without this method has that text read as
// it is.
type WholeOutputs interface {
	// WholeOutput returns the whole output of the step at index in the
	// Program, whose attempt settled with the output text, never "". An
	// error fails the step whose reference or condition needed it, as an
	// unsettled reference does (nothing is dispatched, retries do not
	// apply, on_error does); its text follows "reference $ID.output: ".
	// Run calls it as it calls Refuse, never concurrently with Refuse or
	// Trace: it must not block for long.
	WholeOutput(index, attempt int, text string) (string, error)
}

// Call is one step dispatch (or, for Refuse, the dispatch about to be
// made). Its slices are shared and must not be modified.
type Call struct {
	// PlanID is the plan's id.
	PlanID string
	// Index is the step's index in the Program.
	Index int
	// Step is the step: its ID, Kind, Target and, for shell, Argv.
	Step *ir.Step
	// Attempt is 1 for the first dispatch and counts up with retries (S19).
	Attempt int
	// Input is a tool step's input with every reference substituted (S8),
	// or nil when the step declares none; a host calling an MCP tool then
	// sends {}. Nil for other kinds.
	Input json.RawMessage
	// Objective is a capsule step's task text (S13), with its reference
	// substituted; an output that is none reads as "".
	Objective string
}

// NopHost is a Host that refuses nothing, succeeds at every dispatch with
// no output, and drops every event. Embed it to implement only some
// methods; it is also the no-op host of the benchmarks.
type NopHost struct{}

// Refuse implements Host: it refuses nothing.
func (NopHost) Refuse(context.Context, Call) error { return nil }

// CallTool implements Host: it succeeds with no output.
func (NopHost) CallTool(context.Context, Call) (string, error) { return "", nil }

// RunShell implements Host: it succeeds with no output.
func (NopHost) RunShell(context.Context, Call) (string, error) { return "", nil }

// SpawnCapsule implements Host: it succeeds with no output.
func (NopHost) SpawnCapsule(context.Context, Call) (string, error) { return "", nil }

// Trace implements Host: it drops the event.
func (NopHost) Trace(Event) {}
