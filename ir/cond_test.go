package ir_test

import (
	"fmt"
	"testing"

	"github.com/planc/planc/ir"
)

// condOf lowers a step "c" with the given condition over steps a, b, c, d
// declared before it, and returns its condition.
func condOf(t testing.TB, cond string) (*ir.Step, *ir.Cond) {
	t.Helper()
	prog := lower(t,
		`{"id": "a", "tool": "t"}`, `{"id": "b", "tool": "t"}`, `{"id": "c", "tool": "t"}`, `{"id": "d", "tool": "t"}`,
		fmt.Sprintf(`{"id": "x", "tool": "t", "if": %q}`, cond))
	s := &prog.Steps[4]
	return s, s.Cond
}

// TestCondCode: comparisons take slots and constants; && and || compile to
// jumps that peek at the accumulator (S10), threaded so a chain costs one
// jump; constants are shared.
func TestCondCode(t *testing.T) {
	tests := []struct {
		cond string
		code string
	}{
		{`$a.status == 'failed'`, "[eq @0 #0]"},
		{`$a.status == 'failed' || $b.status == 'failed'`, "[eq @0 #0 jump_if_true 3 eq @1 #0]"},
		{`'x' != "y" && $a.output > 'm'`, "[ne #0 #1 jump_if_false 3 gt @0 #2]"},
		{`$a.status == 'x' || $b.status == 'x' || $c.status == 'x'`, "[eq @0 #0 jump_if_true 5 eq @1 #0 jump_if_true 5 eq @2 #0]"},
		{`$a.status == 'x' && $b.status == 'x' || $c.status < 'x'`, "[eq @0 #0 jump_if_false 4 eq @1 #0 jump_if_true 5 lt @2 #0]"},
	}
	for _, tt := range tests {
		_, c := condOf(t, tt.cond)
		diff(t, tt.cond, tt.code, fmt.Sprint(c.Code))
	}
}

// TestCondEval checks conditions against every assignment of their slots,
// against a direct evaluation of the same expression in Go (S10, S11).
func TestCondEval(t *testing.T) {
	type env struct{ a, b, c, d string }
	tests := []struct {
		cond string
		want func(e env) bool
	}{
		{`$a.output == 'x'`, func(e env) bool { return e.a == "x" }},
		{`$a.output != 'x'`, func(e env) bool { return e.a != "x" }},
		{`$a.output > 'x'`, func(e env) bool { return e.a > "x" }},
		{`$a.output < 'x'`, func(e env) bool { return e.a < "x" }},
		{`$a.output == 'x' || $b.output == 'x' && $c.output == 'x'`, func(e env) bool { return e.a == "x" || e.b == "x" && e.c == "x" }},
		{`$a.output == 'x' && $b.output == 'x' || $c.output == 'x' && $d.output == 'x'`, func(e env) bool { return e.a == "x" && e.b == "x" || e.c == "x" && e.d == "x" }},
		{`$a.output == 'x' || $b.output == 'x' || $c.output != 'x' && $d.output < 'x'`, func(e env) bool { return e.a == "x" || e.b == "x" || e.c != "x" && e.d < "x" }},
		{`$a.output == 'x' && $b.output == 'x' && $c.output == 'x' || $d.output == ''`, func(e env) bool { return e.a == "x" && e.b == "x" && e.c == "x" || e.d == "" }},
		// A constant first, two slots, two constants: the forms Eval
		// does not fuse into a slot-constant comparison.
		{`'x' < $a.output || 'x' > $b.output && 'y' == $c.output`, func(e env) bool { return "x" < e.a || "x" > e.b && "y" == e.c }},
		{`$a.output < $b.output && $c.output != $d.output`, func(e env) bool { return e.a < e.b && e.c != e.d }},
		{`'x' != 'y' && $a.output == 'x' || 'y' < 'x'`, func(e env) bool { return e.a == "x" }},
	}
	words := []string{"", "x", "y"}
	for _, tt := range tests {
		s, c := condOf(t, tt.cond)
		vals := make([]ir.Value, len(s.Refs))
		for _, a := range words {
			for _, b := range words {
				for _, cc := range words {
					for _, d := range words {
						e := env{a, b, cc, d}
						byStep := map[int32]string{0: a, 1: b, 2: cc, 3: d}
						for k, r := range s.Refs {
							vals[k] = ir.Value{Text: byStep[r.Step], Null: byStep[r.Step] == ""}
						}
						if got := c.Eval(vals); got != tt.want(e) {
							t.Errorf("%s with %+v: %v", tt.cond, e, got)
						}
						// The same Cond built by hand (Code only) agrees.
						byHand := &ir.Cond{Source: c.Source, Code: c.Code, Consts: c.Consts}
						if got := byHand.Eval(vals); got != tt.want(e) {
							t.Errorf("%s with %+v, Code only: %v", tt.cond, e, got)
						}
					}
				}
			}
		}
	}
}

// BenchmarkCond evaluates typical conditions: docs/plans.md's two-term ||, and
// a four-term mix of && and || over status and output. Target: 0 allocs/op,
// under 30 ns/op.
func BenchmarkCond(b *testing.B) {
	// The values take the longest path: the first term is false.
	for _, bc := range []struct {
		name, cond string
		text       map[int32]string
	}{
		{"or2", `$a.status == 'failed' || $b.status == 'failed'`, map[int32]string{0: "success", 1: "failed"}},
		{"mix4", `$a.status == 'success' && $b.output != '' || $c.status == 'failed' && $d.output > 'm'`,
			map[int32]string{0: "skipped", 1: "out", 2: "failed", 3: "z"}},
	} {
		s, c := condOf(b, bc.cond)
		vals := make([]ir.Value, len(s.Refs))
		for k, r := range s.Refs {
			vals[k] = ir.Value{Text: bc.text[r.Step]}
		}
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				if c.Eval(vals) {
					n++
				}
			}
			if n == 0 {
				b.Fatal("condition never true")
			}
		})
	}
}
