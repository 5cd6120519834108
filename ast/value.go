package ast

import "unsafe"

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

// Value is one JSON value with its byte range. For a String, Str holds the
// decoded text and Span covers the quotes; for a Number, Str holds the
// literal as written. Array elements are Elems(), object members Members(),
// in source order; a duplicate key keeps only its first member (the parser
// reports the duplicate). A parsed plan holds one Value per JSON value
// outside its step objects (whose members are ast.Fields) and inside each
// step's input, so it is kept to 40 bytes: an array's elements, an
// object's members and a string's reference share one pointer (a value is
// never two of them), set with SetElems, SetMembers or SetRef.
type Value struct {
	Kind Kind
	Bool bool
	// Escaped is true when a String's source holds escapes, so its decoded
	// bytes do not map one-to-one onto source bytes (see parser.StringOffsets).
	Escaped bool
	Span    Range
	n       int32          // number of elements or members
	Str     string         // a String's decoded text, a Number's literal
	kids    unsafe.Pointer // *[n]*Value for an Array, *[n]*Member for an Object, *Ref for a String
}

// Ref returns the reference a String is when its whole text is one
// (semantics S6), else nil.
func (v *Value) Ref() *Ref {
	if v.Kind != String {
		return nil
	}
	return (*Ref)(v.kids)
}

// SetRef records that v, which must be a String, is the reference r.
func (v *Value) SetRef(r *Ref) {
	if v.Kind != String {
		panic("ast: SetRef on " + v.Kind.String())
	}
	v.kids = unsafe.Pointer(r)
}

// Elems returns an Array's elements (nil for any other kind).
func (v *Value) Elems() []*Value {
	if v.Kind != Array || v.n == 0 {
		return nil
	}
	return unsafe.Slice((**Value)(v.kids), v.n)
}

// Members returns an Object's members (nil for any other kind).
func (v *Value) Members() []*Member {
	if v.Kind != Object || v.n == 0 {
		return nil
	}
	return unsafe.Slice((**Member)(v.kids), v.n)
}

// SetElems makes es the elements of v, which must be an Array; v keeps es.
func (v *Value) SetElems(es []*Value) {
	if v.Kind != Array {
		panic("ast: SetElems on " + v.Kind.String())
	}
	v.n, v.kids = int32(len(es)), nil
	if len(es) > 0 {
		v.kids = unsafe.Pointer(unsafe.SliceData(es))
	}
}

// SetMembers makes ms the members of v, which must be an Object; v keeps ms.
func (v *Value) SetMembers(ms []*Member) {
	if v.Kind != Object {
		panic("ast: SetMembers on " + v.Kind.String())
	}
	v.n, v.kids = int32(len(ms)), nil
	if len(ms) > 0 {
		v.kids = unsafe.Pointer(unsafe.SliceData(ms))
	}
}

// Member is one key/value pair of an object, 32 bytes.
type Member struct {
	Key   string
	key   Range
	Value *Value
}

// KeySpan is the range of the key, its quotes included.
func (m *Member) KeySpan() Range { return m.key }

// SetKeySpan records the key's range.
func (m *Member) SetKeySpan(r Range) { m.key = r }

// Get returns the member named key, or nil.
func (v *Value) Get(key string) *Member {
	if v == nil {
		return nil
	}
	for _, m := range v.Members() {
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
	for _, e := range v.Elems() {
		Walk(e, fn)
	}
	for _, m := range v.Members() {
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

// OpenSpan is the range of a container's first byte (an object's opening
// brace), where a missing field is reported.
func (v *Value) OpenSpan() Range { return Range{Start: v.Span.Start, End: v.Span.Start + 1} }
