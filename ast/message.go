package ast

import (
	"strconv"
	"strings"
)

// QuoteList quotes each name (as %q does) and joins them for a message:
// "a", "b" and "c" with conj "and" (or "or"), "a", "b", "c" with conj "".
func QuoteList(names []string, conj string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	if conj == "" || len(q) < 2 {
		return strings.Join(q, ", ")
	}
	return strings.Join(q[:len(q)-1], ", ") + " " + conj + " " + q[len(q)-1]
}

// Plural is n and the noun, with an s when n is not 1: "1 error",
// "2 errors".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
