// Package termtext says which characters must not reach a terminal as
// they are, for every part of planc that writes text a plan or a step
// chose to a terminal: the trace's views (tracefile), diagnostics'
// snippets (diag), the dry run and the report planc run prints. Its
// writers (SafeWriter, JSONWriter) show a step's output and the report on
// a terminal without letting it act on them.
package termtext

import (
	"fmt"
	"unicode/utf8"
)

// Unsafe reports whether r must not reach a terminal as it is: the C0
// and C1 controls and DEL (escape sequences, CSI as U+009B, carriage
// returns), the line and paragraph separators U+2028 and U+2029, and the
// bidirectional controls that reorder what follows (U+061C, U+200E,
// U+200F, U+202A–U+202E, U+2066–U+2069).
func Unsafe(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0, r == 0x2028, r == 0x2029:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// EscapeJSON returns the JSON text b with every Unsafe character from
// U+0080 up written as a \uXXXX escape: the same JSON value, which a
// terminal shows without acting on it. encoding/json already escapes the
// C0 controls; such characters can stand only inside strings, where the
// escape means the same. b is returned as it is when it holds none.
func EscapeJSON(b []byte) []byte {
	i := 0
	for i < len(b) {
		r, n := utf8.DecodeRune(b[i:])
		if r >= 0x80 && Unsafe(r) {
			break
		}
		i += n
	}
	if i == len(b) {
		return b
	}
	out := append([]byte(nil), b[:i]...)
	for i < len(b) {
		r, n := utf8.DecodeRune(b[i:])
		if r >= 0x80 && Unsafe(r) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return out
}
