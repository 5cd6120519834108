package check

import "testing"

// TestShellOperator: an unquoted operator is found, a quoted one or one
// inside a word is not (the line's words are the program's, S14).
func TestShellOperator(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{"ls | wc -l", "|"},
		{"go build && go test", "&&"},
		{"make || true", "||"},
		{"cd d; make", ";"},
		{"make;", ";"},
		{"sleep 10 &", "&"},
		{"go test > log", ">"},
		{"go test >> log", ">>"},
		{"sort < in", "<"},
		{"go test 2>&1", ">&"},
		{"grep '|' file", ""},
		{`grep "a&&b" file`, ""},
		{`echo a\;b`, ""},
		{"bash -c 'ls | wc -l'", ""},
		{"go test ./...", ""},
		{"echo 'unclosed", ""},
	} {
		if got := shellOperator(tc.line); got != tc.want {
			t.Errorf("shellOperator(%q) = %q, want %q", tc.line, got, tc.want)
		}
	}
}
