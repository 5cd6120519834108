package ir

import (
	"testing"

	"github.com/planc/planc/check"
)

// FuzzLower: whatever check accepts, Lower lowers without an error and a
// panic, into a program that passes the hand-made program checks of
// Validate and dumps.
func FuzzLower(f *testing.F) {
	for _, s := range []string{
		`{"id": "p", "steps": []}`,
		`{"id": "p", "steps": [{"id": "a", "tool": "t", "input": {"x": ["$a.output", 1]}}, {"id": "b", "shell": "x 'y z'", "depends_on": ["a", "a"], "if": "$a.status == 'x' || $a.output < \"y\" && 'a' != 'b'"}]}`,
		`{"id": "p", "steps": [{"id": "a", "capsule": "w", "input": {"objective": "$b.output"}}, {"id": "b", "tool": "t", "depends_on": ["a"]}]}`,
		`{"id": "p", "steps": [{"id": "a", "tool": "t", "depends_on": ["b"]}, {"id": "b", "tool": "t", "depends_on": ["a"]}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		p, _ := check.Load(src, nil)
		if p == nil {
			return
		}
		prog, err := Lower(p)
		if err != nil {
			t.Fatalf("Lower refused a checked plan: %v\n%s", err, src)
		}
		prog.valid = false
		if err := prog.Validate(); err != nil {
			t.Fatalf("Lower returned an invalid program: %v\n%s", err, src)
		}
		_ = prog.String()
	})
}
