package ir

import (
	"fmt"
	"unsafe"

	"github.com/planc/planc/ast"
)

// Opcode is a condition instruction's operation.
type Opcode uint8

// The condition opcodes. A condition runs on one boolean accumulator: a
// comparison sets it, a jump reads it. && and || compile to jumps that peek
// at the accumulator and leave it as it is (short-circuit, semantics S10).
const (
	// OpEq sets the accumulator to A == B (S11: exact text).
	OpEq Opcode = iota + 1
	// OpNe sets the accumulator to A != B.
	OpNe
	// OpGt sets the accumulator to A > B (S11: UTF-8 byte order).
	OpGt
	// OpLt sets the accumulator to A < B.
	OpLt
	// OpJumpIfFalse jumps to instruction A when the accumulator is false.
	OpJumpIfFalse
	// OpJumpIfTrue jumps to instruction A when the accumulator is true.
	OpJumpIfTrue
)

var opNames = [...]string{"invalid", "eq", "ne", "gt", "lt", "jump_if_false", "jump_if_true"}

// String returns the opcode's name as the text form prints it.
func (o Opcode) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return "invalid"
}

// IsCompare reports whether o is a comparison.
func (o Opcode) IsCompare() bool { return o >= OpEq && o <= OpLt }

// Instr is one condition instruction. For a comparison, A and B are
// operands: an operand n >= 0 is reference slot n, an operand n < 0 is
// constant ^n (Cond.Consts[^n]). For a jump, A is the target instruction;
// a target equal to len(Code) ends the evaluation.
type Instr struct {
	Op   Opcode
	A, B int32
}

// Cond is a compiled condition. Its result is the accumulator when the
// program counter runs off the end of Code.
type Cond struct {
	// Source is the condition's canonical text (ast.FormatCond).
	Source string
	// Code is the instruction list; jumps go forward only.
	Code []Instr
	// Consts are the quoted literals, each distinct, in first-use order.
	Consts []string

	// terms and neg are the condition as Eval runs it when it has one of
	// the flat shapes, fn when it has not (compileFn); both nil for a Cond
	// built by hand, which Eval then runs from Code.
	terms []term
	neg   bool
	// maxSlot is the greatest slot the terms read.
	maxSlot int32
	fn      func(vals []Value) bool
}

// statusWords are the status words as Go literals. A string literal is
// one object in the binary, so the VM's status text (vm.Status.String
// returns these literals) and an interned constant share their bytes, and
// comparing them is a length and a pointer check, not a byte loop.
var statusWords = [...]string{"success", "failed", "skipped"}

// intern returns the status-word literal equal to k, or k.
func intern(k string) string {
	for _, w := range statusWords {
		if k == w {
			return w
		}
	}
	return k
}

// Value is what a reference slot holds when a step is dispatched (S8): the
// referenced step's output text or its status word. Null marks the output
// of a step that produced none; it reads as "" in a condition and as JSON
// null in an input template.
type Value struct {
	Text string
	Null bool
}

// Eval runs the condition over the step's slot values (one per Step.Refs
// entry) and returns its result. It does not allocate.
func (c *Cond) Eval(vals []Value) bool {
	ts := c.terms
	if ts == nil {
		return c.evalOther(vals)
	}
	// An || of && groups of terms, negated when c.neg (condfn.go). Each
	// term is decided, where it can be, by the cheap tests term describes,
	// in the order of their cost.
	_ = vals[c.maxSlot] // every slot the terms read is in vals
	v0 := unsafe.Pointer(unsafe.SliceData(vals))
	t0 := unsafe.Pointer(unsafe.SliceData(ts))
	end := uintptr(len(ts)) * unsafe.Sizeof(term{})
	for at := uintptr(0); at < end; {
		t := (*term)(unsafe.Add(t0, at))
		x := (*Value)(unsafe.Add(v0, t.at)).Text
		p := unsafe.StringData(x)
		var ok bool
		if t.eqOnly {
			switch {
			case p == unsafe.StringData(t.k) && len(x) == len(t.k):
				ok = t.eq
			case len(x) != len(t.k) || p == t.other:
				ok = t.ne
			default:
				ok = t.mask>>(sign(x, t.k)+1)&1 != 0
			}
		} else {
			switch {
			case len(x) > 0 && x[0] != t.k0:
				ok = t.gt
				if x[0] < t.k0 {
					ok = t.lt
				}
			default:
				ok = t.mask>>(sign(x, t.k)+1)&1 != 0
			}
		}
		if !ok {
			at = t.skipAt
			continue
		}
		if t.last {
			return !c.neg
		}
		at += unsafe.Sizeof(term{})
	}
	return c.neg
}

// evalOther runs a condition without flat terms: its closure, or Code for
// a Cond built by hand.
func (c *Cond) evalOther(vals []Value) bool {
	if c.fn != nil {
		return c.fn(vals)
	}
	return c.evalCode(vals)
}

// evalCode runs Code as it is (a Cond built without fuse).
func (c *Cond) evalCode(vals []Value) bool {
	acc := false
	code := c.Code
	for pc := 0; pc < len(code); pc++ {
		in := code[pc]
		switch in.Op {
		case OpEq:
			acc = c.operand(in.A, vals) == c.operand(in.B, vals)
		case OpNe:
			acc = c.operand(in.A, vals) != c.operand(in.B, vals)
		case OpGt:
			acc = c.operand(in.A, vals) > c.operand(in.B, vals)
		case OpLt:
			acc = c.operand(in.A, vals) < c.operand(in.B, vals)
		case OpJumpIfFalse:
			if !acc {
				pc = int(in.A) - 1
			}
		case OpJumpIfTrue:
			if acc {
				pc = int(in.A) - 1
			}
		}
	}
	return acc
}

func (c *Cond) operand(a int32, vals []Value) string {
	if a >= 0 {
		return vals[a].Text
	}
	return c.Consts[^a]
}

// condCompiler compiles one ast.Cond.
type condCompiler struct {
	c      *Cond
	consts map[string]int32
	slot   func(*ast.Ref) (int32, error)
}

// compileCond compiles c; slot maps each reference to its slot.
func compileCond(c ast.Cond, slot func(*ast.Ref) (int32, error)) (*Cond, error) {
	cc := &condCompiler{c: &Cond{}, consts: map[string]int32{}, slot: slot}
	n, err := cc.emit(c)
	if err != nil {
		return nil, err
	}
	// Formatting after emit: emit has checked the tree has no holes.
	cc.c.Source = ast.FormatCond(c)
	threadJumps(cc.c.Code)
	cc.c.compileFn(n)
	return cc.c, nil
}

// emit appends c's instructions to Code and returns c as a node of the
// tree compileFn specialises.
func (cc *condCompiler) emit(c ast.Cond) (*cnode, error) {
	switch c := c.(type) {
	case *ast.Compare:
		if c == nil {
			return nil, fmt.Errorf("condition has an empty comparison")
		}
		a, err := cc.operand(c.X)
		if err != nil {
			return nil, err
		}
		b, err := cc.operand(c.Y)
		if err != nil {
			return nil, err
		}
		var op Opcode
		switch c.Op {
		case ast.OpEq:
			op = OpEq
		case ast.OpNe:
			op = OpNe
		case ast.OpGt:
			op = OpGt
		case ast.OpLt:
			op = OpLt
		default:
			return nil, fmt.Errorf("condition has an unknown comparison operator %d", c.Op)
		}
		in := Instr{Op: op, A: a, B: b}
		cc.c.Code = append(cc.c.Code, in)
		return &cnode{leaf: in}, nil
	case *ast.Logical:
		if c == nil {
			return nil, fmt.Errorf("condition has an empty operator")
		}
		x, err := cc.emit(c.X)
		if err != nil {
			return nil, err
		}
		op := OpJumpIfFalse
		if c.Op == ast.OpOr {
			op = OpJumpIfTrue
		}
		at := len(cc.c.Code)
		cc.c.Code = append(cc.c.Code, Instr{Op: op})
		y, err := cc.emit(c.Y)
		if err != nil {
			return nil, err
		}
		cc.c.Code[at].A = int32(len(cc.c.Code))
		return join(op == OpJumpIfTrue, x, y), nil
	case nil:
		return nil, fmt.Errorf("condition has an empty operand")
	default:
		return nil, fmt.Errorf("condition node %T cannot be lowered", c)
	}
}

func (cc *condCompiler) operand(o ast.Operand) (int32, error) {
	switch o := o.(type) {
	case *ast.Ref:
		return cc.slot(o)
	case *ast.Literal:
		if o == nil {
			return 0, fmt.Errorf("condition has an empty literal")
		}
		if k, ok := cc.consts[o.Value]; ok {
			return ^k, nil
		}
		k := int32(len(cc.c.Consts))
		cc.consts[o.Value] = k
		cc.c.Consts = append(cc.c.Consts, o.Value)
		return ^k, nil
	default:
		return 0, fmt.Errorf("condition operand %T cannot be lowered", o)
	}
}

// threadJumps retargets each jump that lands on another jump whose outcome
// is already known: a jump taken on false that lands on a jump on false
// takes that jump's target too; landing on a jump on true, it falls through
// it. Chains of || or && then cost one jump.
func threadJumps(code []Instr) {
	for i := len(code) - 1; i >= 0; i-- {
		in := &code[i]
		if in.Op != OpJumpIfFalse && in.Op != OpJumpIfTrue {
			continue
		}
		// Targets are greater than i, so already threaded.
		for t := int(in.A); t < len(code); t = int(in.A) {
			if code[t].Op == in.Op {
				in.A = code[t].A
				break
			}
			if code[t].Op != OpJumpIfFalse && code[t].Op != OpJumpIfTrue {
				break
			}
			in.A = int32(t + 1)
		}
	}
}
