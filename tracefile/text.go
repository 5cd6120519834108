package tracefile

import (
	"strconv"
	"strings"
	"time"
	"unicode"
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

// cells approximates the terminal width of s (after clean): combining and
// format characters take none, East Asian wide characters and emoji two.
func cells(s string) int {
	n := 0
	for _, r := range s {
		switch {
		case r < 0x300:
			n++
		case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		case wide(r):
			n += 2
		default:
			n++
		}
	}
	return n
}

// wide reports whether r takes two cells: the main East Asian wide and
// fullwidth blocks and the emoji blocks.
func wide(r rune) bool {
	return r >= 0x1100 && r <= 0x115f || r >= 0x2e80 && r <= 0xa4cf && r != 0x303f ||
		r >= 0xac00 && r <= 0xd7a3 || r >= 0xf900 && r <= 0xfaff || r >= 0xfe30 && r <= 0xfe4f ||
		r >= 0xff00 && r <= 0xff60 || r >= 0xffe0 && r <= 0xffe6 || r >= 0x1f300 && r <= 0x1f64f ||
		r >= 0x1f900 && r <= 0x1f9ff || r >= 0x20000 && r <= 0x3fffd
}

// table renders rows (the first one the header) as aligned columns, two
// spaces apart, each line prefixed with indent; the last column is not
// padded and no line ends in spaces. Cells are shown through clean.
func table(indent string, rows [][]string) string {
	var widths []int
	for _, row := range rows {
		for i, c := range row {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], cells(Clean(c)))
		}
	}
	var b strings.Builder
	for _, row := range rows {
		var line strings.Builder
		line.WriteString(indent)
		for i, c := range row {
			c = Clean(c)
			line.WriteString(c)
			if i < len(row)-1 {
				line.WriteString(strings.Repeat(" ", widths[i]-cells(c)+2))
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteByte('\n')
	}
	return b.String()
}

// duration formats a settled attempt's duration: 0ms, 12ms, 3.2s, 1m2.5s.
func duration(d time.Duration) string {
	if d < time.Second {
		return strconv.FormatInt(d.Milliseconds(), 10) + "ms"
	}
	return d.Round(time.Millisecond).String()
}
