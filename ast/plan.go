package ast

// Plan is one parsed plan document. Object keeps the whole plan object, every
// member in source order, unknown ones included, so the checker can report
// them; the typed fields are set only when the value has the right type.
type Plan struct {
	Span   Range
	Object *Value // the whole plan object
	// Lines resolves the plan's ranges to lines and columns (for
	// diagnostics); nil for a plan built by hand, whose positions then
	// resolve to line 1.
	Lines *Lines

	ID      string  // the plan id, "" when absent or not a string
	IDField *Member // nil when absent
	// StepsField is nil when steps is absent; Steps holds every element of
	// steps that is an object, with its index in the list.
	StepsField *Member
	Steps      []*Step
}

// StepKind is the kind of a step: what it dispatches.
type StepKind uint8

// The step kinds. KindNone marks a step that declares no kind or more than one.
const (
	KindNone StepKind = iota
	KindTool
	KindShell
	KindCapsule
)

var stepKindNames = [...]string{"none", "tool", "shell", "capsule"}

// String returns "tool", "shell", "capsule" or "none", and "invalid" for a
// value that is none of the kinds.
func (k StepKind) String() string {
	if int(k) < len(stepKindNames) {
		return stepKindNames[k]
	}
	return "invalid"
}

// OnError is a step's failure policy (docs/plans.md, "Failure"; S18).
type OnError uint8

// The on_error policies; OnErrorFail is the default.
const (
	OnErrorFail OnError = iota
	OnErrorSkip
	OnErrorContinue
)

var onErrorNames = [...]string{"fail", "skip", "continue"}

// String returns "fail", "skip" or "continue", and "invalid" for a value
// that is none of the policies.
func (o OnError) String() string {
	if int(o) < len(onErrorNames) {
		return onErrorNames[o]
	}
	return "invalid"
}

// ParseOnError maps the three words to OnError.
func ParseOnError(s string) (OnError, bool) {
	for i, n := range onErrorNames {
		if n == s {
			return OnError(i), true
		}
	}
	return 0, false
}

// Step is one element of steps. Each *Field member points at the raw member
// (nil when the field is absent or null: S3 treats null as absent); the typed
// fields beside it are set only when the value is well typed.
type Step struct {
	Index  int    // position in the plan's steps list
	Object *Value // the step object itself

	ID      string
	IDField *Member

	// Kind is the one kind the step declares, KindNone when it declares none
	// or several (Kinds lists them all, in source order).
	Kind StepKind
	// OnError is the step's failure policy (next to Kind, so the two
	// share a word).
	OnError     OnError
	Kinds       []*Member
	Target      string  // the tool name, shell command line or capsule name
	TargetField *Member // the member holding Target when Kind != KindNone

	// Argv is a shell step's command line split into words as shlex splits
	// it (S14), once, by the parser: check reads its first word, ir keeps
	// it for the host. It is empty when the line has no words or ArgvErr
	// says why it cannot be split; nil for other kinds.
	Argv    []string
	ArgvErr error

	InputField *Member

	DependsOnField *Member
	// DependsOn is depends_on's string entries, in order: each Str is a
	// step id (entries of other types are wrong-type's). When every entry is
	// a string it is the list's own Elems().
	DependsOn []*Value

	IfField *Member
	// Cond is the parsed condition; nil when there is no if or it did not
	// parse (CondErr then holds why).
	Cond    Cond
	CondErr *CondError

	OnErrorField *Member

	RetriesField *Member
	Retries      int

	// Refs lists every reference the step names, in input then in if, in
	// source order.
	Refs []*Ref
}

// RefField is the field a reference reads.
type RefField uint8

// The reference fields. RefOther marks a field that is neither (a refusal).
const (
	RefOutput RefField = iota
	RefStatus
	RefOther
)

// RefFieldOf maps the field name of a reference to its RefField.
func RefFieldOf(name string) RefField {
	switch name {
	case "output":
		return RefOutput
	case "status":
		return RefStatus
	}
	return RefOther
}

// Ref is a reference $ID.FIELD (semantics S6), in input or in an if.
type Ref struct {
	StepID    string
	FieldName string
	Field     RefField
	InIf      bool  // true when the reference is part of the step's condition
	Span      Range // the whole reference
	// The ID's and the field name's ranges, as offsets from Span.Start
	// (so two references written alike are alike but for Span); the
	// field name ends where the reference does.
	idStart, idEnd, fieldStart int32
}

// IDSpan is the range of the ID after $.
func (r *Ref) IDSpan() Range {
	return Range{Start: r.Span.Start + r.idStart, End: r.Span.Start + r.idEnd}
}

// FieldSpan is the range of the field name after the dot.
func (r *Ref) FieldSpan() Range { return Range{Start: r.Span.Start + r.fieldStart, End: r.Span.End} }

// SetParts records the ranges of the ID and the field name, which lie
// inside r.Span (set first), the field name at its end.
func (r *Ref) SetParts(id, field Range) {
	r.idStart, r.idEnd, r.fieldStart = id.Start-r.Span.Start, id.End-r.Span.Start, field.Start-r.Span.Start
}

// String returns the reference as written: $ID.FIELD.
func (r *Ref) String() string { return "$" + r.StepID + "." + r.FieldName }

// Span is the range of the step object (Object's).
func (s *Step) Span() Range { return s.Object.Span }

// CondError is why an if did not parse: a span in the plan file, a message
// that names the fix, and a suggestion when there is one.
type CondError struct {
	Span       Range
	Message    string
	Suggestion string
}
