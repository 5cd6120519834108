package ast

import (
	"strings"
	"testing"
)

func TestQuoteList(t *testing.T) {
	for _, tt := range []struct {
		names []string
		conj  string
		want  string
	}{
		{nil, "and", ""},
		{[]string{"a"}, "or", `"a"`},
		{[]string{"a", "b"}, "or", `"a" or "b"`},
		{[]string{"a", "b", `c"d`}, "and", `"a", "b" and "c\"d"`},
		{[]string{"a", "b", "c"}, "", `"a", "b", "c"`},
	} {
		if got := QuoteList(tt.names, tt.conj); got != tt.want {
			t.Errorf("QuoteList(%q, %q) = %s, want %s", tt.names, tt.conj, got, tt.want)
		}
	}
	for n, want := range map[int]string{0: "0 ticks", 1: "1 tick", 2: "2 ticks"} {
		if got := Plural(n, "tick"); got != want {
			t.Errorf("Plural(%d) = %q", n, got)
		}
	}
}

// TestInspectCond: the walk visits every node depth first, left to right,
// and does not descend below a node for which fn returns false.
func TestInspectCond(t *testing.T) {
	cmp := func(id string) *Compare { return &Compare{X: &Ref{StepID: id}, Y: &Literal{}} }
	c := &Logical{Op: OpOr, X: &Logical{Op: OpAnd, X: cmp("a"), Y: cmp("b")}, Y: cmp("c")}
	var got []string
	InspectCond(c, func(c Cond) bool {
		switch c := c.(type) {
		case *Logical:
			got = append(got, c.Op.String())
			return c.Op != OpAnd
		case *Compare:
			got = append(got, c.X.(*Ref).StepID)
		}
		return true
	})
	if s := strings.Join(got, " "); s != "|| && c" {
		t.Errorf("visited %s", s)
	}
	InspectCond(nil, func(Cond) bool { t.Error("visited a nil condition"); return true })
}
