package sandbox

import (
	"slices"
	"testing"
)

// memo hands back what it remembers only for the same list (by content)
// and the same extra string, and what it hands out shares nothing with
// the caller's slices.
func TestMemo(t *testing.T) {
	var none *memo
	if got := none.get([]string{"a"}, ""); got != nil {
		t.Errorf("a nil memo remembers %q", got)
	}
	in := []string{"/b", "/a", "/a/c"}
	m := newMemo(in, "env", cleanProtect(in))
	if got := m.get([]string{"/b", "/a", "/a/c"}, "env"); !slices.Equal(got, []string{"/a", "/b"}) {
		t.Errorf("same list, another slice: %q", got)
	}
	for _, tt := range []struct {
		in   []string
		also string
	}{
		{[]string{"/b", "/a"}, "env"},
		{[]string{"/b", "/a", "/a/d"}, "env"},
		{[]string{"/b", "/a", "/a/c"}, "other"},
		{nil, "env"},
	} {
		if got := m.get(tt.in, tt.also); got != nil {
			t.Errorf("%q %q: remembered %q", tt.in, tt.also, got)
		}
	}
	in[0] = "/changed" // the caller's slice, changed after the fact
	if got := m.get([]string{"/b", "/a", "/a/c"}, "env"); !slices.Equal(got, []string{"/a", "/b"}) {
		t.Errorf("after the caller changed its slice: %q", got)
	}
	if again := newMemo(nil, "", []string{"/x"}).get(nil, ""); !slices.Equal(again, []string{"/x"}) {
		t.Errorf("remembered for nil: %q", again)
	}
	m2 := newMemo([]string{"/x"}, "", []string{"/x"})
	out := m2.get([]string{"/x"}, "")
	_ = append(out, "/y")
	if out2 := m2.get([]string{"/x"}, ""); len(out2) != 1 || cap(out2) != 1 {
		t.Errorf("an append reached the memo: %q cap %d", out2, cap(out2))
	}
	if empty := newMemo(nil, "", nil).get(nil, ""); empty == nil || len(empty) != 0 {
		t.Errorf("an empty answer is %#v; want empty, not nil (nil is a miss)", empty)
	}
}
