package protect

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/parser"
)

// TestManifestHookTable: the table of docs/manifest.md that shows what a
// deny "rm *" on-shell hook is held against holds as shown: each command
// line of a row, split as the runtime splits a shell step (S14), is
// refused exactly when the row says so, and every command the row names
// as held against is among the ones found.
func TestManifestHookTable(t *testing.T) {
	b, err := os.ReadFile("../../docs/manifest.md")
	if err != nil {
		t.Fatal(err)
	}
	const intro = "With the hook `{\"on\": \"on-shell\", \"match\": \"rm *\", \"commit_policy\": \"deny\"}`:"
	_, rest, ok := strings.Cut(string(b), intro)
	if !ok {
		t.Fatalf("docs/manifest.md has no %q", intro)
	}
	c := checker(t, t.TempDir(), ast.Hook{Index: 0, On: ast.HookOnShell, Match: "rm *", CommitPolicy: ast.CommitDeny})
	code := regexp.MustCompile("`([^`]*)`")
	cells := regexp.MustCompile(`\s*(?:[^|\\]|\\.)*\s*\|`) // a cell and its closing |, \| kept
	rows := 0
	for _, line := range strings.Split(strings.TrimSpace(rest), "\n")[2:] { // past the header and its rule
		if !strings.HasPrefix(line, "|") {
			break
		}
		var cols []string
		for _, m := range cells.FindAllString(line[1:], -1) {
			cols = append(cols, strings.TrimSpace(strings.TrimSuffix(m, "|")))
		}
		if len(cols) != 3 || cols[2] != "yes" && cols[2] != "no" {
			t.Fatalf("row %q: cells %q", line, cols)
		}
		rows++
		// The fail-closed row names no commands: its refusal says why.
		unknown := strings.HasPrefix(cols[1], "what runs is not known")
		var held []string
		for _, m := range code.FindAllStringSubmatch(cols[1], -1) {
			if unknown {
				break
			}
			if m[1] != "…" {
				held = append(held, strings.ReplaceAll(m[1], `\|`, "|"))
			}
		}
		for _, m := range code.FindAllStringSubmatch(cols[0], -1) {
			shown := strings.ReplaceAll(strings.ReplaceAll(m[1], `\|`, "|"), "<TAB>", "\t")
			argv, err := parser.SplitCommand(shown)
			if err != nil {
				t.Errorf("%q: %v", shown, err)
				continue
			}
			r := c.Shell(argv, "")
			if refused := r != nil && r.Kind == CallDenied; refused != (cols[2] == "yes") {
				t.Errorf("%q: refused %v (%v); the table says %s", shown, refused, r, cols[2])
			}
			if unknown && (r == nil || !strings.Contains(r.Message, "so the hook cannot be held against what it runs")) {
				t.Errorf("%q: %v; want a refusal for what cannot be known", shown, r)
			}
			found := ShellCommands(argv)
			for _, h := range held {
				if !slices.Contains(found, h) {
					t.Errorf("%q: %q not among the commands found, %q", shown, h, found)
				}
			}
		}
	}
	if rows < 10 {
		t.Fatalf("read %d rows of the table; want all of them", rows)
	}
}
