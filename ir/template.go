package ir

import (
	"unicode/utf8"
)

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
			dst = AppendJSONString(dst, v.Text)
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

const hexDigits = "0123456789abcdef"

// AppendJSONString appends s to dst as a JSON string literal. Control
// characters, quotes and backslashes are escaped, and so are U+2028 and
// U+2029 so the text stays on one line everywhere; invalid UTF-8 becomes
// U+FFFD. Unlike encoding/json, <, > and & are written as they are.
func AppendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
