package ast

// Kind is the JSON type of a Value.
type Kind uint8

// The JSON kinds.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

var kindNames = [...]string{"null", "boolean", "number", "string", "list", "object"}

// String names the kind as messages do: "null", "boolean", "number",
// "string", "list", "object".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// Value is one JSON value with its span. For a String, Str holds the decoded
// text and Span covers the quotes; for a Number, Str holds the literal as
// written. Array elements are in Elems, object members in Members, in source
// order; a duplicate key keeps only its first member (the parser reports the
// duplicate). The one-byte fields come first so a Value packs into 104
// bytes: a parsed plan holds one per JSON value.
type Value struct {
	Kind Kind
	Bool bool
	// Escaped is true when a String's source holds escapes, so its decoded
	// bytes do not map one-to-one onto source bytes (see parser.StringOffsets).
	Escaped bool
	Span    Span
	Str     string
	Elems   []*Value
	Members []*Member
	// Ref is set when the Value is a String whose whole text is a reference
	// (semantics S6).
	Ref *Ref
}

// Member is one key/value pair of an object.
type Member struct {
	Key     string
	KeySpan Span // covers the key's quotes
	Value   *Value
}

// Get returns the member named key, or nil.
func (v *Value) Get(key string) *Member {
	if v == nil {
		return nil
	}
	for _, m := range v.Members {
		if m.Key == key {
			return m
		}
	}
	return nil
}

// Walk calls fn for v and every value nested in it, depth first, in source
// order. fn returning false stops the descent below that value.
func Walk(v *Value, fn func(*Value) bool) {
	if v == nil || !fn(v) {
		return
	}
	for _, e := range v.Elems {
		Walk(e, fn)
	}
	for _, m := range v.Members {
		Walk(m.Value, fn)
	}
}

// Article names the kind with its article, as messages want it: "a string",
// "an object", "null".
func (k Kind) Article() string {
	switch k {
	case Null:
		return "null"
	case Object:
		return "an object"
	}
	return "a " + k.String()
}

// OpenSpan is the span of a container's first byte (an object's opening
// brace), where a missing field is reported.
func (v *Value) OpenSpan() Span {
	e := v.Span.Start
	e.Offset++
	e.Col++
	return Span{Start: v.Span.Start, End: e}
}
