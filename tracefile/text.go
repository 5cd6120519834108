package tracefile

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/planc/planc/internal/termtext"
)

// quote returns s as a Go quoted string: every id or path a trace gives is
// shown this way in prose, so that no text in it can pass for the prose
// around it.
func quote(s string) string { return strconv.Quote(s) }

// Clean returns s safe for a terminal: control characters, the line and
// paragraph separators and the bidirectional controls become Go escapes
// (a line break becomes \n), invalid UTF-8 becomes U+FFFD.
func Clean(s string) string {
	safe := utf8.ValidString(s)
	for _, r := range s {
		if UnsafeRune(r) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if UnsafeRune(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// UnsafeRune reports whether r must not reach a terminal as it is
// (termtext.Unsafe).
func UnsafeRune(r rune) bool { return termtext.Unsafe(r) }

// Duration formats a settled attempt's duration: 0ms, 12ms, 3.2s, 1m2.5s.
func Duration(d time.Duration) string {
	if d < time.Second {
		return strconv.FormatInt(d.Milliseconds(), 10) + "ms"
	}
	return d.Round(time.Millisecond).String()
}
