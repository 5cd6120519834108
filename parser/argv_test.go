package parser

import (
	"slices"
	"testing"

	"github.com/google/shlex"
)

// TestSplitCommandMatchesShlex: the fast path for plain command lines gives
// shlex's words (S14: the runtime splits with shlex), and anything shlex
// treats specially still goes through shlex; with or without the slab.
func TestSplitCommandMatchesShlex(t *testing.T) {
	for _, line := range []string{
		"go test ./...", "  go\ttest", "\n\rgo", "go", "a\vb c", "a\fb", "true",
		"bash -c 'go test'", `"go" test`, `g\o test`, "go # comment", "# all comment",
		"é x", "   ", "", "'unclosed", `trailing\`, "'' x", "a b c d e f g h i j",
	} {
		sameAsShlex(t, line)
	}
}

func sameAsShlex(t *testing.T, line string) {
	t.Helper()
	want, werr := shlex.Split(line)
	for _, n := range []*nodes{nil, {}} {
		got, gerr := splitCommand(n, line)
		if (werr != nil) != (gerr != nil) {
			t.Fatalf("%q: shlex error %v, SplitCommand error %v", line, werr, gerr)
		}
		if werr == nil && !slices.Equal(want, got) {
			t.Fatalf("%q: shlex %q, SplitCommand %q", line, want, got)
		}
		if werr != nil && got != nil {
			t.Fatalf("%q: words %q beside the error %v", line, got, gerr)
		}
	}
}

// FuzzSplitCommand: SplitCommand and shlex agree on every line.
func FuzzSplitCommand(f *testing.F) {
	f.Add("go test ./...")
	f.Add("bash -c 'x'")
	f.Fuzz(func(t *testing.T, line string) { sameAsShlex(t, line) })
}

// TestStepArgv: a shell step's command line is split once, by the parser,
// into Step.Argv; a line that cannot be split keeps why in ArgvErr; other
// kinds have none.
func TestStepArgv(t *testing.T) {
	src := `{"id":"p","steps":[{"id":"a","shell":"go  test ./..."},{"id":"b","shell":"bash -c 'x"},{"id":"c","tool":"notes"},{"id":"d","shell":"  "}]}`
	plan, ds := ParsePlan([]byte(src), DefaultLimits())
	if len(ds) != 0 || plan == nil {
		t.Fatal(ds)
	}
	a, b, c, d := plan.Steps[0], plan.Steps[1], plan.Steps[2], plan.Steps[3]
	if !slices.Equal(a.Argv, []string{"go", "test", "./..."}) || a.ArgvErr() != nil {
		t.Errorf("a: %q, %v", a.Argv, a.ArgvErr())
	}
	if b.ArgvErr() == nil || b.Argv != nil {
		t.Errorf("b: %q, %v; want no words and an error", b.Argv, b.ArgvErr())
	}
	if c.Argv != nil || c.ArgvErr() != nil {
		t.Errorf("c, a tool step: %q, %v", c.Argv, c.ArgvErr())
	}
	if len(d.Argv) != 0 || d.ArgvErr() != nil {
		t.Errorf("d, a blank line: %q, %v", d.Argv, d.ArgvErr())
	}
}
