package check

import (
	"strings"
	"testing"

	"github.com/planc/planc/internal/termtext"
	"github.com/planc/planc/parser"
)

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

// TestShellOperatorFixEscaped: a line holding a character a terminal acts
// on (an escape, a bidi control) is not copied into the fix raw.
func TestShellOperatorFixEscaped(t *testing.T) {
	src := []byte(`{"id": "p", "steps": [{"id": "x", "shell": "ls | x\u001b[2J\u202e"}]}`)
	plan, ds := parser.ParsePlan(src, parser.DefaultLimits())
	ds = append(ds, Check(plan, &Capabilities{ShellAllow: []string{"ls"}})...)
	found := false
	for _, d := range ds {
		if d.Code != "shell-operator" {
			continue
		}
		found = true
		if strings.ContainsFunc(d.Message, termtext.Unsafe) {
			t.Errorf("raw control characters in %q", d.Message)
		}
	}
	if !found {
		t.Fatalf("no shell-operator warning: %v", ds)
	}
}
