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

	// Text is the source text the ranges are offsets into.
	Text string

	ID      string  // the plan id, "" when absent or not a string
	IDField *Member // nil when absent
	// StepsField is nil when steps is absent; Steps holds every element of
	// steps that is an object, with its index in the list, and NotObjects
	// every other one. A steps list's own Value holds no elements.
	StepsField *Member
	Steps      []*Step
	NotObjects []Elem
}

// Elem is an element of a list with its index in it.
type Elem struct {
	Index int
	Value *Value
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

// StepField names a field of a step (docs/plans.md, "Steps").
type StepField uint8

// The step fields, in the order docs/plans.md lists them. FieldUnknown
// marks a member whose key is none of them.
const (
	FieldID StepField = iota
	FieldTool
	FieldShell
	FieldCapsule
	FieldInput
	FieldDependsOn
	FieldIf
	FieldOnError
	FieldRetries
	NumStepFields
	FieldUnknown StepField = 255
)

var stepFieldNames = [NumStepFields]string{"id", "tool", "shell", "capsule", "input", "depends_on", "if", "on_error", "retries"}

// StepFieldOf returns the step field named key, or FieldUnknown.
func StepFieldOf(key string) StepField {
	for i, n := range stepFieldNames {
		if n == key {
			return StepField(i)
		}
	}
	return FieldUnknown
}

// String returns the field's key, "" for FieldUnknown.
func (f StepField) String() string {
	if f < NumStepFields {
		return stepFieldNames[f]
	}
	return ""
}

// Field is one member of a step object, 20 bytes: the key's range, the
// value's kind and range. A step object is not kept as a Value tree: the
// values the plan format gives meaning to are read as the object is parsed
// (Step.ID, Target, DependsOn, Cond, OnError, Retries), input keeps its
// tree (Step.Input), and what the rules need of every other member is
// here. A string's or a number's text is Plan.FieldText's.
type Field struct {
	key     Range
	Span    Range // the value's range
	Kind    Kind  // the value's JSON type
	Escaped bool  // a String's source holds escapes
	Name    StepField
}

// KeySpan is the range of the key, its quotes included.
func (f *Field) KeySpan() Range { return f.key }

// SetKeySpan records the key's range.
func (f *Field) SetKeySpan(r Range) { f.key = r }

// Dep is one string entry of depends_on: a step id and its range.
type Dep struct {
	ID   string
	Span Range
}

// Step is one element of steps. A field's accessor (IDField, InputField, …)
// returns its member, nil when the field is absent or null (S3 treats null
// as absent); the typed fields are set only when the value is well typed.
type Step struct {
	Index int   // position in the plan's steps list
	Span  Range // the step object

	ID string

	Target string // the tool name, shell command line or capsule name

	// Fields are the step object's members, in source order, null ones and
	// unknown keys included; a duplicate key keeps only its first member
	// (the parser reports the duplicate).
	Fields []Field
	// Extra is what only an unusual step has (unknown keys, depends_on
	// entries that are not strings, a command line that cannot be split),
	// nil for the others.
	Extra *StepExtra

	// Argv is a shell step's command line split into words as shlex splits
	// it (S14), once, by the parser: check reads its first word, ir keeps
	// it for the host. It is empty when the line has no words or ArgvErr()
	// says why it cannot be split; nil for other kinds.
	Argv []string

	// Input is the value of input (its whole tree), nil when absent or
	// null.
	Input *Value

	// DependsOn is depends_on's string entries, in order (entries of
	// other types are wrong-type's, in DependsOnOther); non-nil when
	// depends_on is a list.
	DependsOn []Dep

	// Cond is the parsed condition; nil when there is no if or it did not
	// parse (CondErr then holds why).
	Cond    Cond
	CondErr *CondError

	// Refs lists every reference the step names, in input then in if, in
	// source order.
	Refs []*Ref

	// Retries, Kind, OnError and at share the last two words.
	Retries int32
	// Kind is the one kind the step declares, KindNone when it declares none
	// or several (Kinds lists them all, in source order).
	Kind StepKind
	// OnError is the step's failure policy.
	OnError OnError
	// at holds, for each StepField, 1 + its index in Fields when it is
	// present and not null, else 0.
	at [NumStepFields]uint8
}

// StepExtra is what only an unusual step has.
type StepExtra struct {
	// UnknownKeys are the decoded keys of the step's FieldUnknown
	// members, in order.
	UnknownKeys []string
	// DependsOnOther are the entries of depends_on that are not strings.
	DependsOnOther []Field
	// ArgvErr is why a shell step's command line cannot be split.
	ArgvErr error
}

// ArgvErr is why a shell step's command line cannot be split into Argv,
// nil when it can (or the step is not a shell step).
func (s *Step) ArgvErr() error {
	if s.Extra == nil {
		return nil
	}
	return s.Extra.ArgvErr
}

// UnknownKeys returns the decoded keys of the step's FieldUnknown members,
// in order.
func (s *Step) UnknownKeys() []string {
	if s.Extra == nil {
		return nil
	}
	return s.Extra.UnknownKeys
}

// DependsOnOther returns the entries of depends_on that are not strings.
func (s *Step) DependsOnOther() []Field {
	if s.Extra == nil {
		return nil
	}
	return s.Extra.DependsOnOther
}

// Field returns the member of field f, nil when absent or null.
func (s *Step) Field(f StepField) *Field {
	if f >= NumStepFields || s.at[f] == 0 {
		return nil
	}
	return &s.Fields[s.at[f]-1]
}

// SetField records that Fields[i] is field f (present, not null).
func (s *Step) SetField(f StepField, i int) { s.at[f] = uint8(i + 1) }

// IDField is the member of id.
func (s *Step) IDField() *Field { return s.Field(FieldID) }

// InputField is the member of input.
func (s *Step) InputField() *Field { return s.Field(FieldInput) }

// DependsOnField is the member of depends_on.
func (s *Step) DependsOnField() *Field { return s.Field(FieldDependsOn) }

// IfField is the member of if.
func (s *Step) IfField() *Field { return s.Field(FieldIf) }

// OnErrorField is the member of on_error.
func (s *Step) OnErrorField() *Field { return s.Field(FieldOnError) }

// RetriesField is the member of retries.
func (s *Step) RetriesField() *Field { return s.Field(FieldRetries) }

// TargetField is the member holding Target when Kind != KindNone.
func (s *Step) TargetField() *Field {
	if s.Kind == KindNone {
		return nil
	}
	return s.Field(StepField(FieldTool + StepField(s.Kind-KindTool)))
}

// Kinds returns the members of tool, shell and capsule the step has, in
// source order, and how many there are.
func (s *Step) Kinds() (fs [3]*Field, n int) {
	for i := range s.Fields {
		if f := &s.Fields[i]; f.Name >= FieldTool && f.Name <= FieldCapsule && s.at[f.Name] == uint8(i+1) {
			fs[n] = f
			n++
		}
	}
	return fs, n
}

// Key returns the key of f, a member of s.
func (s *Step) Key(f *Field) string {
	if f.Name != FieldUnknown {
		return f.Name.String()
	}
	k := 0
	for i := range s.Fields {
		if &s.Fields[i] == f {
			return s.Extra.UnknownKeys[k]
		}
		if s.Fields[i].Name == FieldUnknown {
			k++
		}
	}
	return ""
}

// OpenSpan is the range of the step object's opening brace, where a
// missing field is reported.
func (s *Step) OpenSpan() Range { return Range{Start: s.Span.Start, End: s.Span.Start + 1} }

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

// CondError is why an if did not parse: a span in the plan file, a message
// that names the fix, and a suggestion when there is one.
type CondError struct {
	Span       Range
	Message    string
	Suggestion string
}
