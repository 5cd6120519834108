package ir

import "github.com/planc/planc/internal/jsonstr"

// Template is a tool step's input lowered to JSON text with holes. Text is
// the input's canonical JSON (compact, object members in source order,
// strings re-escaped, numbers as written) with every string that is a
// reference cut out; Holes says where each cut was and which slot fills it.
// Materialising it at dispatch is one pass over Text.
type Template struct {
	// Text is the JSON text with the holes removed.
	Text []byte
	// Holes are the places to fill, ascending by Offset.
	Holes []Hole
}

// Hole is one place in a Template's Text where a reference slot's value
// goes, encoded as a JSON string, or null (semantics S8).
type Hole struct {
	// Offset is the byte offset in Text at which the value is inserted.
	Offset int32
	// Slot is the index in Step.Refs of the reference that fills it.
	Slot int32
}

// Static reports whether t has no holes, so Text is the input as it is.
func (t *Template) Static() bool { return len(t.Holes) == 0 }

// Size returns the length of t filled with vals, assuming no value needs
// escaping; it is the capacity to allocate before Append.
func (t *Template) Size(vals []Value) int {
	n := len(t.Text)
	for _, h := range t.Holes {
		v := vals[h.Slot]
		if v.Null {
			n += len("null")
		} else {
			n += len(v.Text) + 2
		}
	}
	return n
}

// Append appends t filled with the slot values vals to dst and returns the
// extended buffer. A value is written as a JSON string, or null when it is
// Null.
func (t *Template) Append(dst []byte, vals []Value) []byte {
	last := 0
	for _, h := range t.Holes {
		dst = append(dst, t.Text[last:h.Offset]...)
		last = int(h.Offset)
		if v := vals[h.Slot]; v.Null {
			dst = append(dst, "null"...)
		} else {
			dst = jsonstr.Append(dst, v.Text)
		}
	}
	return append(dst, t.Text[last:]...)
}

// Text is a capsule step's objective (S13): a constant text, or the value of
// one reference slot.
type Text struct {
	// Const is the text when Slot < 0.
	Const string
	// Slot is the reference slot whose value is the text, or -1.
	Slot int32
}

// Value returns the text given the step's slot values. A Null output reads
// as the empty string, as it does in a condition.
func (t *Text) Value(vals []Value) string {
	if t.Slot < 0 {
		return t.Const
	}
	return vals[t.Slot].Text
}
