package sessionfmt

import (
	"strconv"
	"unicode/utf8"
)

// OutputLimit is the longest output a step's result carries (S20): a
// longer one is cut to this many bytes and marked, and kept whole in the
// session directory.
const OutputLimit = 64 << 10

// CutPoint returns the length of the longest prefix of s of at most limit
// bytes that ends on a UTF-8 boundary: it never splits a character.
func CutPoint(s string, limit int) int {
	if len(s) <= limit {
		return len(s)
	}
	i := max(limit, 0)
	// Back up over at most UTFMax-1 continuation bytes to a rune start.
	for j := 0; j < utf8.UTFMax && i > 0 && !utf8.RuneStart(s[i]); j++ {
		i--
	}
	return i
}

// CutText returns the text a step's result carries for its whole output
// out (S20): out itself when it is at most limit bytes, else its first
// bytes up to limit (on a UTF-8 boundary) followed by
// "\n[cut: N bytes in all; whole text at SHOWN]", where shown names the
// file that keeps the whole text. References see this text; a redrive
// that reads a kept output back makes it again with the same shown name.
func CutText(out string, limit int, shown string) string {
	if len(out) <= limit {
		return out
	}
	return CutPrefix(out, limit, int64(len(out)), shown)
}

// CutPrefix returns CutText's text for an output of total bytes (over
// limit) of which prefix holds the first ones, at least limit+1 of them
// (or all): what a host that never holds the whole output in memory, or a
// reader of a kept file, makes.
func CutPrefix(prefix string, limit int, total int64, shown string) string {
	return prefix[:CutPoint(prefix, limit)] + "\n[cut: " + strconv.FormatInt(total, 10) + " bytes in all; whole text at " + shown + "]"
}
