package ast_test

import (
	"testing"
	"unsafe"

	"github.com/planc/planc/ast"
)

// TestNamesOutOfRange: every kind and policy has its name, and a value
// beyond them says "invalid" instead of panicking.
func TestNamesOutOfRange(t *testing.T) {
	kinds := map[ast.StepKind]string{ast.KindNone: "none", ast.KindTool: "tool", ast.KindShell: "shell", ast.KindCapsule: "capsule", ast.KindCapsule + 1: "invalid", 255: "invalid"}
	for k, want := range kinds {
		if got := k.String(); got != want {
			t.Errorf("StepKind(%d).String() = %q, want %q", k, got, want)
		}
	}
	policies := map[ast.OnError]string{ast.OnErrorFail: "fail", ast.OnErrorSkip: "skip", ast.OnErrorContinue: "continue", ast.OnErrorContinue + 1: "invalid", 255: "invalid"}
	for o, want := range policies {
		if got := o.String(); got != want {
			t.Errorf("OnError(%d).String() = %q, want %q", o, got, want)
		}
	}
}

// TestValueSize: a parsed plan holds one Value per JSON value outside step objects, so its size
// is most of a plan's memory (docs/performance.md); it must stay 40 bytes
// (its span a Range of two offsets).
func TestValueSize(t *testing.T) {
	if n := unsafe.Sizeof(ast.Value{}); n != 40 {
		t.Fatalf("ast.Value is %d bytes, want 40", n)
	}
}

// TestMemberSize: one Member per object member, its key's range two offsets.
func TestMemberSize(t *testing.T) {
	if n := unsafe.Sizeof(ast.Member{}); n != 32 {
		t.Fatalf("ast.Member is %d bytes, want 32", n)
	}
	var m ast.Member
	sp := ast.Range{Start: 10, End: 16}
	if m.SetKeySpan(sp); m.KeySpan() != sp {
		t.Fatalf("KeySpan %v, want %v", m.KeySpan(), sp)
	}
}

// TestStepSize: one Step per step of a plan.
func TestStepSize(t *testing.T) {
	if n := unsafe.Sizeof(ast.Step{}); n > 200 {
		t.Fatalf("ast.Step is %d bytes, want at most 200", n)
	}
}

// TestFieldSize: one Field per member of a step object, which has no
// Value tree.
func TestFieldSize(t *testing.T) {
	if n := unsafe.Sizeof(ast.Field{}); n != 20 {
		t.Fatalf("ast.Field is %d bytes, want 20", n)
	}
}

// TestValueRef: a String's reference shares the pointer of an Array's
// elements and an Object's members; only a String has one.
func TestValueRef(t *testing.T) {
	r := &ast.Ref{StepID: "a", FieldName: "output"}
	s := &ast.Value{Kind: ast.String, Str: "$a.output"}
	if s.Ref() != nil {
		t.Fatal("a new String has a reference")
	}
	s.SetRef(r)
	if s.Ref() != r || s.Elems() != nil || s.Members() != nil {
		t.Fatalf("String: Ref %v, Elems %v, Members %v", s.Ref(), s.Elems(), s.Members())
	}
	a := &ast.Value{Kind: ast.Array}
	a.SetElems([]*ast.Value{s})
	if a.Ref() != nil || len(a.Elems()) != 1 {
		t.Fatalf("Array: Ref %v, %d elements", a.Ref(), len(a.Elems()))
	}
	defer func() {
		if recover() == nil {
			t.Fatal("SetRef on an Array did not panic")
		}
	}()
	a.SetRef(r)
}
