package ir

import "github.com/planc/planc/ast"

// Kind is what a step dispatches: ast's StepKind, so lowering copies it.
// A program's steps are never ast.KindNone (Validate).
type Kind = ast.StepKind

// The step kinds.
const (
	KindTool    = ast.KindTool
	KindShell   = ast.KindShell
	KindCapsule = ast.KindCapsule
)

// OnError is what a step's final failure does to the rest of the plan
// (docs/plans.md, "Failure"; S18): ast's OnError, so lowering copies it.
type OnError = ast.OnError

// The on_error policies; OnErrorFail is the default.
const (
	OnErrorFail     = ast.OnErrorFail
	OnErrorSkip     = ast.OnErrorSkip
	OnErrorContinue = ast.OnErrorContinue
)

// Field is the field of a step's result that a reference reads.
type Field uint8

// The reference fields (semantics S6).
const (
	FieldOutput Field = iota
	FieldStatus
)

// String returns "output" or "status".
func (f Field) String() string {
	if f == FieldStatus {
		return "status"
	}
	return "output"
}

// Ref is one reference slot of a step: the step it reads, by index, and
// which field. A step's slots are numbered by their position in Step.Refs;
// conditions and input templates name slots, not steps.
type Ref struct {
	Step  int32
	Field Field
}

// Step is one lowered step. Its fields are read-only.
//
// The fields the VM reads at each step's dispatch and settling come first,
// together (ID to Input, 96 bytes), so that a step costs the VM two cache
// lines, not the three its 176 bytes span; on a plan too big for the cache
// each is a miss.
type Step struct {
	// ID is the step's id.
	ID string
	// Kind is what the step dispatches.
	Kind Kind
	// OnError is the step's failure policy.
	OnError OnError
	// Retries is the number of further dispatches after a failed one (S19).
	Retries int
	// Dependents are the steps that wait for this one, ascending.
	Dependents []int32
	// Refs are the step's reference slots: every distinct reference it
	// names in its condition and its input, in source order (S9 resolves
	// them all when the step becomes ready). A shell step's input is
	// ignored, so its references are not slots.
	Refs []Ref
	// Cond is the compiled condition, nil when the step has no if.
	Cond *Cond
	// Input is a tool step's input as a JSON template, nil when the step
	// declares no input (and for other kinds).
	Input *Template

	// Target is the tool name, the shell command line as written, or the
	// capsule's bare name.
	Target string
	// Argv is a shell step's command line split into words with shlex
	// (semantics S14): the host resolves Argv[0] on PATH. Nil for other
	// kinds.
	Argv []string
	// Deps are the steps this step waits for, by index, in depends_on order
	// with duplicates removed. Its in-degree is len(Deps).
	Deps []int32
	// Objective is a capsule step's task text (S13), nil for other kinds.
	Objective *Text
}

// Program is a lowered plan. It is immutable: neither Lower's caller nor
// the VM may modify it, so one Program can be run many times, concurrently.
type Program struct {
	// ID is the plan's id.
	ID string
	// Steps holds the steps in plan order; a step's index is its position.
	Steps []Step
	// InDegree[i] is len(Steps[i].Deps): a run copies it to count the
	// dependencies each step still waits for.
	InDegree []int32
	// Roots are the steps with no dependencies, ascending.
	Roots []int32

	// valid is set by Lower, whose programs need no Validate.
	valid bool
}
