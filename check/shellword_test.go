package check

import (
	"testing"

	"github.com/google/shlex"
)

// TestFirstWordMatchesShlex: the fast path for plain command lines gives
// shlex's first word (S14: the runtime splits with shlex), and anything
// shlex treats specially still goes through shlex.
func TestFirstWordMatchesShlex(t *testing.T) {
	for _, line := range []string{
		"go test ./...", "  go\ttest", "\n\rgo", "go", "a\vb c", "a\fb",
		"bash -c 'go test'", `"go" test`, `g\o test`, "go # comment", "# all comment",
		"é x", "   ", "", "'unclosed", `trailing\`, "'' x",
	} {
		want, werr := shlex.Split(line)
		got, ok, gerr := firstWord(line)
		if (werr != nil) != (gerr != nil) {
			t.Errorf("%q: shlex error %v, firstWord error %v", line, werr, gerr)
			continue
		}
		switch {
		case werr != nil:
		case len(want) == 0 && ok:
			t.Errorf("%q: shlex has no words, firstWord %q", line, got)
		case len(want) > 0 && (!ok || got != want[0]):
			t.Errorf("%q: shlex first word %q, firstWord %q (%v)", line, want[0], got, ok)
		}
	}
}

// FuzzFirstWord: firstWord and shlex agree on every line.
func FuzzFirstWord(f *testing.F) {
	f.Add("go test ./...")
	f.Add("bash -c 'x'")
	f.Fuzz(func(t *testing.T, line string) {
		want, werr := shlex.Split(line)
		got, ok, gerr := firstWord(line)
		if (werr != nil) != (gerr != nil) {
			t.Fatalf("%q: errors differ: %v / %v", line, werr, gerr)
		}
		if werr == nil && (len(want) > 0) != ok {
			t.Fatalf("%q: word presence differs: %q / %v", line, want, ok)
		}
		if werr == nil && len(want) > 0 && got != want[0] {
			t.Fatalf("%q: %q / %q", line, want[0], got)
		}
	})
}
