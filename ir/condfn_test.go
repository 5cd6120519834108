package ir

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/planc/planc/ast"
)

// TestCondFormsAgree: every form a condition can run in — flat terms,
// closures, Code as it is — gives the same result as evaluating the tree
// directly, over random trees (the parser's || of && chains, and deeper
// nestings only a hand-built tree has) and random slot values. Operands
// mix slots and constants either way round; values include the status
// words as the VM passes them (the literals intern shares) and copies of
// them (other bytes, same text), prefixes, and the empty text.
func TestCondFormsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 1))
	words := []string{"", "a", "b", "ab", "ba", "failed", "success", "skipped", "succes", "successes", "z"}
	consts := []string{"", "a", "ab", "failed", "success", "skipped", "m"}
	forms := map[string]int{}
	for range 3000 {
		forms[checkForms(t, rng, randCond(rng, consts, 3, rng.IntN(2) == 0), words, 40)]++
	}
	if forms["terms"] == 0 || forms["closure"] == 0 {
		t.Fatalf("the trees did not reach every form: %v", forms)
	}
}

// checkForms compiles cond and holds its flat or closure form, and Code
// as it is, to the tree's own evaluation over rounds of slot values drawn
// from words, each as the VM passes it or as a copy (the same text in
// other bytes). It returns the form cond compiled to.
func checkForms(t *testing.T, rng *rand.Rand, cond ast.Cond, words []string, rounds int) string {
	t.Helper()
	c, err := compileCond(cond, func(r *ast.Ref) (int32, error) { return int32(r.StepID[0] - 'a'), nil })
	if err != nil {
		t.Fatal(err)
	}
	byHand := &Cond{Source: c.Source, Code: c.Code, Consts: c.Consts}
	vals := make([]Value, 4)
	for range rounds {
		for k := range vals {
			w := words[rng.IntN(len(words))]
			if rng.IntN(2) == 0 {
				w = strings.Clone(w) // the same text in other bytes
			}
			vals[k] = Value{Text: w, Null: w == ""}
		}
		want := evalTree(cond, vals)
		if got := c.Eval(vals); got != want {
			t.Fatalf("%s over %v: %v, want %v (terms %v, neg %v)", c.Source, vals, got, want, c.terms, c.neg)
		}
		if got := byHand.Eval(vals); got != want {
			t.Fatalf("%s over %v, Code only: %v, want %v", c.Source, vals, got, want)
		}
	}
	switch {
	case c.terms != nil:
		return "terms"
	case c.fn != nil:
		return "closure"
	}
	return ""
}

// randCond returns a random condition tree over the output of steps a to
// d. parsed keeps to the shapes the parser builds (left-associative, &&
// under ||); otherwise any nesting.
func randCond(rng *rand.Rand, consts []string, depth int, parsed bool) ast.Cond {
	operand := func() ast.Operand {
		if rng.IntN(2) == 0 {
			return &ast.Ref{StepID: string(rune('a' + rng.IntN(4))), FieldName: "output", Field: ast.RefOutput}
		}
		return &ast.Literal{Value: consts[rng.IntN(len(consts))], Quote: '\''}
	}
	leaf := func() ast.Cond {
		x, y := operand(), operand()
		if rng.IntN(4) != 0 { // mostly a slot against a constant
			x = &ast.Ref{StepID: string(rune('a' + rng.IntN(4))), FieldName: "output", Field: ast.RefOutput}
			y = &ast.Literal{Value: consts[rng.IntN(len(consts))], Quote: '\''}
			if rng.IntN(3) == 0 {
				x, y = y, x
			}
		}
		return &ast.Compare{Op: ast.CompareOp(rng.IntN(4)), X: x, Y: y}
	}
	if parsed {
		chain := func(op ast.LogicalOp, n int, next func() ast.Cond) ast.Cond {
			c := next()
			for range n {
				c = &ast.Logical{Op: op, X: c, Y: next()}
			}
			return c
		}
		return chain(ast.OpOr, rng.IntN(4), func() ast.Cond { return chain(ast.OpAnd, rng.IntN(4), leaf) })
	}
	if depth == 0 || rng.IntN(3) == 0 {
		return leaf()
	}
	return &ast.Logical{Op: ast.LogicalOp(rng.IntN(2)), X: randCond(rng, consts, depth-1, false), Y: randCond(rng, consts, depth-1, false)}
}

// evalTree evaluates a condition tree directly (S10, S11).
func evalTree(c ast.Cond, vals []Value) bool {
	switch c := c.(type) {
	case *ast.Logical:
		if c.Op == ast.OpOr {
			return evalTree(c.X, vals) || evalTree(c.Y, vals)
		}
		return evalTree(c.X, vals) && evalTree(c.Y, vals)
	case *ast.Compare:
		text := func(o ast.Operand) string {
			if r, ok := o.(*ast.Ref); ok {
				return vals[r.StepID[0]-'a'].Text
			}
			return o.(*ast.Literal).Value
		}
		x, y := text(c.X), text(c.Y)
		switch c.Op {
		case ast.OpEq:
			return x == y
		case ast.OpNe:
			return x != y
		case ast.OpGt:
			return x > y
		}
		return x < y
	}
	panic("unknown node")
}

// FuzzCond holds every form of a condition to the tree's own evaluation
// (S10, S11) over fuzzed slot texts: a random tree (seed) whose constants
// are the status words, the fuzzed texts and cuts of them, and slot values
// drawn from the same, as the VM passes them (status-word literals) or as
// copies (other bytes).
func FuzzCond(f *testing.F) {
	f.Add(uint64(1), "failed", "out", "", "z")
	f.Add(uint64(2), "success", "skipped", "succes", "m")
	f.Add(uint64(3), "\x00", "\xff", "a\x00", "ab")
	f.Fuzz(func(t *testing.T, seed uint64, x0, x1, x2, x3 string) {
		rng := rand.New(rand.NewPCG(seed, 26))
		texts := []string{x0, x1, x2, x3}
		words := append([]string{"", "failed", "success", "skipped"}, texts...)
		for _, x := range texts {
			if len(x) > 0 {
				words = append(words, x[:rng.IntN(len(x))], x[rng.IntN(len(x)):])
			}
		}
		for range 20 {
			checkForms(t, rng, randCond(rng, words, 3, rng.IntN(2) == 0), words, 10)
		}
	})
}
