package golden

import (
	"fmt"
	"os"
	"os/exec"
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

// TestReadmeCheckExcerpt: the diagnostic block the README shows under
// "planc check" is one planc check prints, exactly: the same three lines
// are in the tour's check block, which TestReadmeTour holds to planc's
// output, with the file named as the tour names it.
func TestReadmeCheckExcerpt(t *testing.T) {
	b, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	_, after, ok := strings.Cut(readme, "\n## planc check\n")
	if !ok {
		t.Fatal(`the README has no "## planc check" section`)
	}
	var excerpt []string
	for _, l := range strings.Split(after, "\n") {
		if strings.HasPrefix(l, "    five-mistakes.json:") || len(excerpt) > 0 && len(excerpt) < 3 {
			excerpt = append(excerpt, strings.TrimPrefix(l, "    "))
		}
	}
	if len(excerpt) != 3 {
		t.Fatalf("the section's excerpt: %q", excerpt)
	}
	_, tour, _ := strings.Cut(readme, "<!-- tour:check:begin -->")
	tour, _, _ = strings.Cut(tour, "<!-- tour:check:end -->")
	want := "golden/testdata/check/err/" + strings.Join(excerpt, "\n") + "\n"
	if !strings.Contains(tour, "\n"+want) {
		t.Errorf("the excerpt\n%s\nis not in the tour's check block:\n%s", want, tour)
	}
}

// TestCLIDocCheckExcerpt: the diagnostic block docs/cli.md shows for
// planc check is what planc prints for a plan whose line 7 is the line it
// shows, under a .planc/capsule.json that does not allow cargo.
func TestCLIDocCheckExcerpt(t *testing.T) {
	b, err := os.ReadFile("../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	var shown []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "    plan.json:7:") || len(shown) > 0 && len(shown) < 3 {
			shown = append(shown, strings.TrimPrefix(l, "    "))
		}
	}
	if len(shown) != 3 {
		t.Fatalf("docs/cli.md's check block: %q", shown)
	}
	dir := t.TempDir()
	line7 := strings.TrimPrefix(shown[1], "    ") // planc indents the source line by 4
	testkit.WriteFiles(t, dir, ".planc/capsule.json", `{"name": "local/x", "capabilities": {"plan": {"submit": true}, "shell": {"allow": ["bash"]}}, "tools": {"builtin": ["repo-files", "notes"]}}`,
		"plan.json", "{\n\"id\": \"refresh-fixtures\",\n\"steps\": [\n{\"id\": \"list\", \"tool\": \"repo-files\", \"input\": {\"glob\": \"tests/**\"}},\n\n\n"+line7+"\n{\"id\": \"n\", \"tool\": \"notes\", \"input\": {\"body\": \"x\"}}\n]\n}\n")
	cmd := exec.Command(testkit.PlancBinary(t), "check", "--capsule", ".planc/capsule.json", "plan.json")
	cmd.Dir = dir
	out, _ := cmd.Output()
	if want := strings.Join(shown, "\n") + "\n"; string(out) != want {
		t.Errorf("planc check prints\n%s\ndocs/cli.md shows\n%s", out, want)
	}
}
