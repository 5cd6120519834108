package check

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestIDIndexMatchesMap checks the id index against a map on random ids
// with repeats, the empty id and ids that differ in one byte: every lookup
// finds the first step of its id, first[] marks repeats, and absent ids
// (including "") are not found.
func TestIDIndexMatchesMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 7, 100, 5000} {
		ids := make([]string, n)
		for i := range ids {
			switch rng.IntN(10) {
			case 0:
				ids[i] = ""
			case 1, 2:
				if i > 0 {
					ids[i] = ids[rng.IntN(i)] // a repeat
					continue
				}
				fallthrough
			default:
				ids[i] = fmt.Sprintf("s%d", rng.IntN(4*n+1))
			}
		}
		want := map[string]int32{}
		for i, id := range ids {
			if _, ok := want[id]; !ok && id != "" {
				want[id] = int32(i)
			}
		}
		x := newIDIndex(len(ids), func(i int32) string { return ids[i] })
		for i, id := range ids {
			wantFirst := int32(-1)
			if id != "" {
				wantFirst = want[id]
			}
			if x.first[i] != wantFirst {
				t.Fatalf("n=%d: first[%d] (%q) = %d, want %d", n, i, id, x.first[i], wantFirst)
			}
		}
		for k := range 4*n + 10 {
			id := fmt.Sprintf("s%d", k)
			got := x.lookup(id)
			w, ok := want[id]
			if !ok {
				w = -1
			}
			if got != w {
				t.Fatalf("n=%d: lookup(%q) = %d, want %d", n, id, got, w)
			}
		}
		if got := x.lookup(""); got != -1 {
			t.Fatalf("n=%d: lookup(\"\") = %d, want -1", n, got)
		}
	}
}
