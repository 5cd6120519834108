package ast

import (
	"strings"
	"unicode/utf8"
)

// isRefIDByte reports whether c may appear in the step id of a reference:
// [A-Za-z0-9_-] (semantics S4, S6).
func isRefIDByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// UnreferenceableRef reports whether s begins with text that reads as a
// reference to a step whose id no reference can name: "$", an id holding a
// character outside [A-Za-z0-9_-] (S4), a dot, then "output" or "status".
// The text ends at white space, a quote, an operator character of a
// condition or the end of s. It returns the text's length, the id and the
// id's first character outside the alphabet.
func UnreferenceableRef(s string) (n int, id string, bad rune, ok bool) {
	if !strings.HasPrefix(s, "$") {
		return 0, "", 0, false
	}
	n = 1 + strings.IndexFunc(s[1:], func(r rune) bool { return strings.ContainsRune(" \t\r\n'\"=!<>&|()", r) })
	if n == 0 {
		n = len(s)
	}
	dot := strings.LastIndexByte(s[:n], '.')
	if dot < 2 {
		return 0, "", 0, false
	}
	if f := s[dot+1 : n]; f != "output" && f != "status" {
		return 0, "", 0, false
	}
	id = s[1:dot]
	for i, r := range id {
		if r >= utf8.RuneSelf || !isRefIDByte(id[i]) {
			return n, id, r, true
		}
	}
	return 0, "", 0, false
}
