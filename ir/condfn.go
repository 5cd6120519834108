package ir

import "unsafe"

// This file turns a condition into the form Eval runs. The usual shapes —
// one comparison of a slot with a constant, a chain of && or || over such
// comparisons, an || of && chains or an && of || chains — become one flat
// list of terms that Eval walks without an instruction dispatch or a call;
// anything else (a comparison of two slots or two constants inside a chain,
// deeper nesting) becomes a tree of closures. Every form gives the same
// result as Code (TestCondFormsAgree).

// cnode is a condition tree with && and || chains flattened: a comparison
// (leaf) when kids is nil, else an n-ary && or || (or) over kids.
type cnode struct {
	leaf Instr
	or   bool
	kids []*cnode
}

// join returns x && y (or x || y, when or), flattening chains of the same
// operator.
func join(or bool, x, y *cnode) *cnode {
	n := &cnode{or: or}
	for _, k := range [...]*cnode{x, y} {
		if k.kids != nil && k.or == or {
			n.kids = append(n.kids, k.kids...)
		} else {
			n.kids = append(n.kids, k)
		}
	}
	return n
}

// term is a comparison of slot a with constant k, as one of an || of &&
// groups: it holds when bit sign+1 of mask is set, sign being the sign of
// the comparison of slot a's text with k (-1, 0, 1). When it fails, the
// walk goes on at the first term of the next group (skipAt); when it holds
// and is the last of its group (last), the group, and so the ||, holds.
//
// The other fields let Eval decide most comparisons from a length, a
// pointer and at most one byte of the slot's text:
//   - the same bytes as k (a status word the VM passes and an interned
//     constant share them) are equal: the term holds when eq;
//   - for == and != (eqOnly), another length, or other — the status word
//     of k's length that is not k, when k is one — is not equal: the term
//     holds when ne;
//   - a first byte other than k0 orders the two: lt or gt.
//
// Anything else goes to sign. Terms are laid out so the fields a walk
// reads first share the first words.
type term struct {
	k     string
	other *byte
	// at is slot a's offset in bytes in the slot values (a Value each).
	at uintptr
	// skipAt is where the walk goes on when the term fails: the offset
	// in bytes, in the terms, of the first term of the next group.
	skipAt uintptr
	a      int32
	mask   uint8
	k0     byte
	eq     bool
	ne     bool
	lt     bool
	gt     bool
	eqOnly bool
	last   bool
}

// The masks of the comparisons: bit 0 less, bit 1 equal, bit 2 greater.
var masks = [...]uint8{OpEq: 0b010, OpNe: 0b101, OpGt: 0b100, OpLt: 0b001}

// noWord is what term.other points at when k is not a status word: no
// string's bytes are there.
var noWord [1]byte

// newTerm returns the term for slot a against k with mask m.
func newTerm(a int32, k string, m uint8) term {
	k = intern(k)
	t := term{k: k, a: a, at: uintptr(a) * unsafe.Sizeof(Value{}), mask: m, other: &noWord[0]}
	t.setMask(m)
	for _, w := range statusWords {
		if len(w) == len(k) && w != k && isStatusWord(k) {
			t.other = unsafe.StringData(w)
		}
	}
	if len(k) > 0 {
		t.k0 = k[0]
	}
	return t
}

// setMask sets mask and the booleans Eval reads for it.
func (t *term) setMask(m uint8) {
	t.mask = m
	t.lt, t.eq, t.gt = m&0b001 != 0, m&0b010 != 0, m&0b100 != 0
	t.eqOnly = m == masks[OpEq] || m == masks[OpNe]
	t.ne = m == masks[OpNe]
}

// isStatusWord reports whether k is one of the status words.
func isStatusWord(k string) bool {
	for _, w := range statusWords {
		if k == w {
			return true
		}
	}
	return false
}

// holds reports whether the term holds for the slot text x, by sign alone
// (the form a closure runs; Eval tries the cheaper tests first).
func (t *term) holds(x string) bool {
	return t.mask>>(sign(x, t.k)+1)&1 != 0
}

// sign orders x and k by their bytes (S11): -1, 0 or 1. It loops at most
// len(k)+1 times, and k is a constant from the plan's text, so a long
// output costs no more than a short one. The same bytes (a status word
// and an interned constant, intern) are equal at once.
func sign(x, k string) int {
	if len(x) == len(k) && unsafe.StringData(x) == unsafe.StringData(k) {
		return 0
	}
	for i := 0; i < len(x) && i < len(k); i++ {
		if x[i] != k[i] {
			if x[i] < k[i] {
				return -1
			}
			return 1
		}
	}
	switch {
	case len(x) < len(k):
		return -1
	case len(x) > len(k):
		return 1
	}
	return 0
}

// asTerm returns in as a slot-constant comparison, a constant first turned
// round (> becomes <), when it is one.
func (c *Cond) asTerm(in Instr) (term, bool) {
	op, a, b := in.Op, in.A, in.B
	if a < 0 && b >= 0 {
		a, b = b, a
		switch op {
		case OpGt:
			op = OpLt
		case OpLt:
			op = OpGt
		}
	}
	if a >= 0 && b < 0 && op.IsCompare() {
		return newTerm(a, c.Consts[^b], masks[op]), true
	}
	return term{}, false
}

// flatten sets c.terms and c.neg for n when n has one of the flat shapes,
// and reports whether it has. An && of || groups is the negation of an ||
// of && groups of the negated terms (De Morgan).
func (c *Cond) flatten(n *cnode) bool {
	var groups []*cnode
	switch {
	case n.kids == nil:
		groups = []*cnode{n}
	case n.or:
		groups = n.kids
	default: // an && chain: one group, or an && of || groups
		groups = n.kids
		for _, g := range groups {
			if g.kids != nil {
				c.neg = true
				break
			}
		}
		if !c.neg {
			groups = []*cnode{n}
		}
	}
	var ts []term
	for _, g := range groups {
		kids := g.kids
		if kids == nil {
			kids = []*cnode{g}
		}
		for k, kid := range kids {
			if kid.kids != nil {
				c.neg = false
				return false
			}
			t, ok := c.asTerm(kid.leaf)
			if !ok {
				c.neg = false
				return false
			}
			if c.neg {
				t.setMask(t.mask ^ 0b111)
			}
			t.last = k == len(kids)-1
			ts = append(ts, t)
		}
		for i := len(ts) - len(kids); i < len(ts); i++ {
			ts[i].skipAt = uintptr(len(ts)) * unsafe.Sizeof(term{})
		}
	}
	c.terms = ts
	for _, t := range ts {
		c.maxSlot = max(c.maxSlot, t.a)
	}
	return true
}

// compileFn sets the form Eval runs for the tree n: flat terms when n has
// a flat shape, else a closure.
func (c *Cond) compileFn(n *cnode) {
	if !c.flatten(n) {
		c.fn = c.closure(n)
	}
}

// closure returns a closure that evaluates n.
func (c *Cond) closure(n *cnode) func([]Value) bool {
	if n.kids == nil {
		in := n.leaf
		if t, ok := c.asTerm(in); ok {
			return func(vals []Value) bool { return t.holds(vals[t.a].Text) }
		}
		if in.A < 0 && in.B < 0 { // two constants: known now
			r := c.compareOp(in, nil)
			return func([]Value) bool { return r }
		}
		return func(vals []Value) bool { return c.compareOp(in, vals) }
	}
	sub := &Cond{Consts: c.Consts}
	if sub.flatten(n) {
		return sub.Eval
	}
	fs := make([]func([]Value) bool, len(n.kids))
	for i, k := range n.kids {
		fs[i] = c.closure(k)
	}
	if n.or {
		return func(vals []Value) bool {
			for _, f := range fs {
				if f(vals) {
					return true
				}
			}
			return false
		}
	}
	return func(vals []Value) bool {
		for _, f := range fs {
			if !f(vals) {
				return false
			}
		}
		return true
	}
}

// compareOp evaluates one comparison of any operands.
func (c *Cond) compareOp(in Instr, vals []Value) bool {
	x, y := c.operand(in.A, vals), c.operand(in.B, vals)
	switch in.Op {
	case OpEq:
		return x == y
	case OpNe:
		return x != y
	case OpGt:
		return x > y
	}
	return x < y
}
