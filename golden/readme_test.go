package golden

import (
	"fmt"
	"strings"
	"testing"

	"github.com/planc/planc/check"
	"github.com/planc/planc/host"
	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/parser"
)

// codesTable renders the README's table of every diagnostic code, from the
// parser's document codes, check's rules and the run's refusal codes, so
// the README cannot drift.
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
			sev += " (capability rule)"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | `%s` |\n", r.Code, sev, cell(r.Doc), cell(r.Example))
	}
	for _, c := range host.Codes() {
		fmt.Fprintf(&b, "| `%s` | error (planc run) | %s | `%s` |\n", c.Code, cell(c.Doc), cell(c.Example))
	}
	return b.String()
}

// TestReadmeCodes: the README lists every code with one example.
func TestReadmeCodes(t *testing.T) {
	const begin, end = "<!-- codes:begin -->\n", "<!-- codes:end -->"
	testkit.GoldenSection(t, "../README.md", begin, end, codesTable(), "the codes table")
}
