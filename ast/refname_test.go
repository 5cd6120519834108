package ast

import "testing"

// TestUnreferenceableRef: a reference-shaped text whose id holds a
// character outside [A-Za-z0-9_-] is found, up to where a condition's
// token would end; a well-formed reference, another field, or no id is not.
func TestUnreferenceableRef(t *testing.T) {
	for _, tc := range []struct {
		s   string
		n   int
		id  string
		bad rune
		ok  bool
	}{
		{"$ü.output", 10, "ü", 'ü', true},
		{"$a-ü.status == 'x'", 12, "a-ü", 'ü', true},
		{"$run tests.output", 0, "", 0, false}, // stops at the space: "$run" has no field
		{"$a.b.output", 5 + 6, "a.b", '.', true},
		{"$a.output", 0, "", 0, false},
		{"$ü.foo", 0, "", 0, false},
		{"$.output", 0, "", 0, false},
		{"ü.output", 0, "", 0, false},
	} {
		n, id, bad, ok := UnreferenceableRef(tc.s)
		if n != tc.n || id != tc.id || bad != tc.bad || ok != tc.ok {
			t.Errorf("UnreferenceableRef(%q) = %d, %q, %q, %v; want %d, %q, %q, %v", tc.s, n, id, bad, ok, tc.n, tc.id, tc.bad, tc.ok)
		}
	}
}
