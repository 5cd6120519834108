package ast

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func at(off, end int32) Span {
	return Span{Start: Pos{Offset: off, Line: 1, Col: off + 1}, End: Pos{Offset: end, Line: 1, Col: end + 1}}
}

// TestSortDiagnostics: output order is by start, then end, then code, then
// message, whatever order the rules reported in (the checker runs its rules
// in one interleaved pass and relies on this for deterministic output).
func TestSortDiagnostics(t *testing.T) {
	ds := []Diagnostic{
		{Span: at(9, 10), Code: "b", Message: "x"},
		{Span: at(3, 8), Code: "z", Message: "x"},
		{Span: at(3, 5), Code: "z", Message: "y"},
		{Span: at(3, 5), Code: "a", Message: "y"},
		{Span: at(3, 5), Code: "z", Message: "b"},
		{Span: at(0, 1), Code: "q", Message: "x"},
	}
	want := []Diagnostic{ds[5], ds[3], ds[4], ds[2], ds[1], ds[0]}
	SortDiagnostics(ds)
	if diff := cmp.Diff(want, ds); diff != "" {
		t.Fatalf("order (-want +got):\n%s", diff)
	}
}

// TestOneLine: the golden files' and planc check's first-line form.
func TestOneLine(t *testing.T) {
	d := Diagnostic{Span: Span{Start: Pos{Offset: 40, Line: 3, Col: 7}}, Severity: Warning, Code: "duplicate-dependency",
		Message: `step "b" depends on "a" twice; remove the second entry`}
	want := `plan.json:3:7: warning: step "b" depends on "a" twice; remove the second entry [duplicate-dependency]`
	if got := d.OneLine("plan.json"); got != want {
		t.Fatalf("OneLine = %q, want %q", got, want)
	}
	if !HasErrors([]Diagnostic{d, {Severity: Error}}) || HasErrors([]Diagnostic{d}) {
		t.Fatal("HasErrors must be true exactly when an error is present")
	}
}

// TestWalk: depth first in source order; false stops the descent below
// that value only; a nil value is not visited.
func TestWalk(t *testing.T) {
	str := func(s string) *Value { return &Value{Kind: String, Str: s} }
	inner := &Value{Kind: Object}
	inner.SetMembers([]*Member{{Key: "k", Value: str("c")}})
	skip := &Value{Kind: Array, Str: "skip"}
	skip.SetElems([]*Value{str("hidden")})
	root := &Value{Kind: Array}
	root.SetElems([]*Value{str("a"), inner, skip, str("d")})
	var got []string
	Walk(root, func(v *Value) bool {
		got = append(got, v.Kind.String()+":"+v.Str)
		return v.Str != "skip"
	})
	want := []string{"list:", "string:a", "object:", "string:c", "list:skip", "string:d"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("walk order (-want +got):\n%s", diff)
	}
	Walk(nil, func(*Value) bool { t.Fatal("called for nil"); return true })
}
