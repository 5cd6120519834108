package golden

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/planc/planc/check"
	"github.com/planc/planc/parser"
)

// codesTable renders the README's table of every diagnostic code, from the
// parser's document codes and check's rules, so the README cannot drift.
func codesTable() string {
	var b strings.Builder
	b.WriteString("| code | severity | what it finds | example |\n| --- | --- | --- | --- |\n")
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	for _, c := range parser.Codes() {
		fmt.Fprintf(&b, "| `%s` | error | %s | `%s` |\n", c.Code, cell(c.Doc), cell(c.Example))
	}
	for _, r := range check.Rules() {
		sev := r.Severity.String()
		if r.NeedsCaps {
			sev += " (needs --capsule)"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | `%s` |\n", r.Code, sev, cell(r.Doc), cell(r.Example))
	}
	return b.String()
}

// TestReadmeCodes: the README lists every code with one example.
func TestReadmeCodes(t *testing.T) {
	const begin, end = "<!-- codes:begin -->\n", "<!-- codes:end -->"
	raw, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	i, j := strings.Index(readme, begin), strings.Index(readme, end)
	if i < 0 || j < i {
		t.Fatal("README.md lacks the codes markers")
	}
	want := codesTable()
	if *update {
		readme = readme[:i+len(begin)] + want + readme[j:]
		if err := os.WriteFile("../README.md", []byte(readme), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got := readme[i+len(begin) : j]; got != want {
		t.Errorf("README.md's codes table is stale; run go test ./golden -update\n--- got\n%s\n--- want\n%s", got, want)
	}
}
