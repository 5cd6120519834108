package diag

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestCaretWithinLine: whatever the span, on lines short and long (cut
// to a window), of narrow, wide and combined characters and tabs, the
// caret line ends within the source line shown above it (one cell past
// its end at most, for a span at the end of the line).
func TestCaretWithinLine(t *testing.T) {
	units := []string{"a", "bc", "日", "\U0001F468\u200D\U0001F469", "e\u0301", "\t", `"x": 1, `, "\x01"}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		var b strings.Builder
		for n := rng.IntN(400); b.Len() < n; {
			b.WriteString(units[rng.IntN(len(units))])
		}
		text := []byte(b.String())
		start := rng.IntN(len(text) + 1)
		for start < len(text) && !utf8.RuneStart(text[start]) {
			start--
		}
		end := start + rng.IntN(len(text)-start+1)
		shown, caret := snippet(text, start, end)
		if w, c := Width(shown), Width(caret); c > w+1 {
			t.Fatalf("line %q, span [%d, %d): caret of %d cells under a line of %d:\n%s\n%s", text, start, end, c, w, shown, caret)
		}
	}
}
