package ast

import "strings"

// Cond is a node of a condition tree (semantics S10): a *Logical (&& or ||)
// or a *Compare. Operands of a Compare are a *Ref or a *Literal.
type Cond interface {
	CondSpan() Range
	// Format appends the node's canonical text to b.
	Format(b *strings.Builder)
}

// LogicalOp is && or ||.
type LogicalOp uint8

// The logical operators.
const (
	OpAnd LogicalOp = iota
	OpOr
)

// String returns "&&" or "||".
func (o LogicalOp) String() string {
	if o == OpOr {
		return "||"
	}
	return "&&"
}

// Logical is X && Y or X || Y; both are left-associative, && binds tighter.
// Its span, from X's start to Y's end, is CondSpan.
type Logical struct {
	Op     LogicalOp
	X, Y   Cond
	OpSpan Range
}

// CompareOp is one of == != > <.
type CompareOp uint8

// The comparison operators (semantics S11).
const (
	OpEq CompareOp = iota
	OpNe
	OpGt
	OpLt
)

var compareNames = [...]string{"==", "!=", ">", "<"}

// String returns the operator as written.
func (o CompareOp) String() string { return compareNames[o] }

// Compare is one comparison of two operands. Its span, from X's start to
// Y's end, is CondSpan.
type Compare struct {
	Op     CompareOp
	X, Y   Operand
	OpSpan Range
}

// Operand is a *Ref or a *Literal.
type Operand interface {
	OperandSpan() Range
	formatOperand(b *strings.Builder)
}

// Literal is a quoted literal: no escapes, Quote is ' or ".
type Literal struct {
	Value string
	Quote byte
	Span  Range
}

// CondSpan implements Cond: from X's start to Y's end.
func (c *Logical) CondSpan() Range {
	return Range{Start: c.X.CondSpan().Start, End: c.Y.CondSpan().End}
}

// CondSpan implements Cond: from X's start to Y's end.
func (c *Compare) CondSpan() Range {
	return Range{Start: c.X.OperandSpan().Start, End: c.Y.OperandSpan().End}
}

// OperandSpan implements Operand.
func (r *Ref) OperandSpan() Range { return r.Span }

// OperandSpan implements Operand.
func (l *Literal) OperandSpan() Range { return l.Span }

// Format implements Cond. Parentheses never appear: the tree's shape is
// implied by precedence, so a left operand of the same operator needs none,
// and a right operand of the same operator cannot occur (left-associative)
// except through a parser bug, which the round-trip fuzz test would catch.
func (c *Logical) Format(b *strings.Builder) {
	c.X.Format(b)
	b.WriteString(" ")
	b.WriteString(c.Op.String())
	b.WriteString(" ")
	c.Y.Format(b)
}

// Format implements Cond.
func (c *Compare) Format(b *strings.Builder) {
	c.X.formatOperand(b)
	b.WriteString(" ")
	b.WriteString(c.Op.String())
	b.WriteString(" ")
	c.Y.formatOperand(b)
}

func (r *Ref) formatOperand(b *strings.Builder) { b.WriteString(r.String()) }

func (l *Literal) formatOperand(b *strings.Builder) {
	b.WriteByte(l.Quote)
	b.WriteString(l.Value)
	b.WriteByte(l.Quote)
}

// FormatCond returns c's canonical text: tokens separated by one space.
func FormatCond(c Cond) string {
	var b strings.Builder
	c.Format(&b)
	return b.String()
}

// CondRefs appends every reference in c, left to right, to dst.
// It is InspectCond written out, for the parser's pass over every step.
func CondRefs(dst []*Ref, c Cond) []*Ref {
	switch c := c.(type) {
	case *Logical:
		dst = CondRefs(dst, c.X)
		dst = CondRefs(dst, c.Y)
	case *Compare:
		if r, ok := c.X.(*Ref); ok {
			dst = append(dst, r)
		}
		if r, ok := c.Y.(*Ref); ok {
			dst = append(dst, r)
		}
	}
	return dst
}

// InspectCond walks the condition tree c depth first, left to right, as
// go/ast.Inspect does: it calls fn for c, and when fn returns true, for
// the operands of a Logical in turn. A nil c is not visited.
func InspectCond(c Cond, fn func(Cond) bool) {
	if c == nil || !fn(c) {
		return
	}
	if l, ok := c.(*Logical); ok {
		InspectCond(l.X, fn)
		InspectCond(l.Y, fn)
	}
}
