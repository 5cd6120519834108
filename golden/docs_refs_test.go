package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// climbRE finds a relative path that climbs out of its directory, such as
// ../notes/spec.md: where it lands is worked out from the file it is in.
var climbRE = regexp.MustCompile(`(?:\.\./)+[A-Za-z0-9_.-][A-Za-z0-9_./-]*`)

// bareDocRE finds a page named without its directory, such as running.md
// where docs/running.md is meant.
var bareDocRE = regexp.MustCompile(`(?:^|[^A-Za-z0-9_./-])([A-Za-z0-9_-]+\.md)\b`)

// prose returns the part of line that is written for people: a Markdown
// line whole, a Go line's comment; "" for anything else (code, data).
func prose(rel, line string) string {
	switch filepath.Ext(rel) {
	case ".md":
		return line
	case ".go":
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "//") {
			return t
		}
		if i := strings.Index(line, " // "); i >= 0 {
			return line[i:]
		}
	}
	return ""
}

// outsideFindings are the ways text of file rel names a document the
// repository does not have: a path that climbs out of the repository, or
// a page named without its directory that is not beside the file (a Go
// comment names pages from the root: docs/running.md, README.md).
func outsideFindings(rel, text string) []string {
	var out []string
	dir := filepath.Dir(filepath.FromSlash(rel))
	for _, m := range climbRE.FindAllString(text, -1) {
		if r, err := filepath.Rel(".", filepath.Join(dir, filepath.FromSlash(m))); err != nil || !filepath.IsLocal(r) {
			out = append(out, fmt.Sprintf("names %q, outside the repository, which a clone does not have; cite a page of docs/ (the README's Documentation table lists them) or a number of %s", m, semanticsDoc))
		}
	}
	base := dir
	if filepath.Ext(rel) == ".go" {
		base = "."
	}
	for _, sm := range bareDocRE.FindAllStringSubmatch(text, -1) {
		name := sm[1]
		if name == sessionNotes || exists(filepath.Join(base, name)) {
			continue
		}
		if exists(filepath.Join("docs", name)) {
			out = append(out, fmt.Sprintf("names %q without its directory; write docs/%s", name, name))
		} else {
			out = append(out, fmt.Sprintf("names %q, a page the repository does not have; cite a page of docs/ (the README's Documentation table lists them)", name))
		}
	}
	return out
}

// sessionNotes is a file planc writes in a session directory, not a page.
const sessionNotes = "notes.md"

// exists reports whether rel, a path from the repository's root, exists.
func exists(rel string) bool {
	_, err := os.Stat(filepath.Join(repoRoot, rel))
	return err == nil
}

// TestDocsNoOutsidePaths: no file of the repository names a document
// outside it, nor a docs/ page that does not exist.
func TestDocsNoOutsidePaths(t *testing.T) {
	var out []finding
	for _, f := range repoFiles(t) {
		for n, line := range f.lines {
			if !mayNameOutside(line) {
				continue
			}
			for _, msg := range outsideFindings(f.rel, prose(f.rel, line)) {
				if f.rel == "README.md" && strings.HasPrefix(line, "| `") {
					msg += " (the codes table is made from the rules' Doc strings: fix the rule's, then go test ./golden -update)"
				}
				out = append(out, finding{f.rel, n + 1, msg})
			}
			for _, m := range docPathRE.FindAllString(line, -1) {
				if _, err := os.Stat(filepath.Join(repoRoot, filepath.FromSlash(m))); err != nil {
					out = append(out, finding{f.rel, n + 1, fmt.Sprintf("cites %s, which does not exist; cite an existing page of docs/ or write it", m)})
				}
			}
		}
	}
	report(t, "places name a document the repository does not have", out)
}

// mayNameOutside is a cheap first look: only a line holding one of these
// can match climbRE, bareDocRE or docPathRE.
func mayNameOutside(line string) bool {
	for _, s := range []string{".md", ".json", "../"} {
		if strings.Contains(line, s) {
			return true
		}
	}
	return false
}

// docPathRE finds a cited page of docs/.
var docPathRE = regexp.MustCompile(`\bdocs/[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.(?:md|json)\b`)

var (
	// citeRE finds a cited decision number.
	citeRE = regexp.MustCompile(`\b([SPV])([0-9]+)\b`)
	// rangeRE finds a range of them: S1-S23, S24–S30, S1…S23.
	rangeRE = regexp.MustCompile(`\b([SPV])([0-9]+)\s*(?:-|–|…|\.\.\.?)\s*([SPV])?([0-9]+)\b`)
	// defRE finds a definition in docs/semantics.md: a list item
	// starting with the number and a period.
	defRE = regexp.MustCompile(`^\s*[-*]\s+(?:\*\*)?([SPV][0-9]+)\.`)
)

// citesNumbers reports whether rel is a file whose decision numbers are
// checked: Go, Markdown, and JSON outside test data.
func citesNumbers(rel string) bool {
	switch filepath.Ext(rel) {
	case ".go", ".md":
		return true
	case ".json":
		return !strings.Contains(rel, "testdata/")
	}
	return false
}

// TestDocsDecisionsDefined: every S-, P- and V-number cited in a Go,
// Markdown or JSON file is defined, once, in docs/semantics.md.
func TestDocsDecisionsDefined(t *testing.T) {
	files := repoFiles(t)
	defined := map[string]int{}
	var out []finding
	for _, f := range files {
		if f.rel != semanticsDoc {
			continue
		}
		for n, line := range f.lines {
			if m := defRE.FindStringSubmatch(line); m != nil {
				if first, dup := defined[m[1]]; dup {
					out = append(out, finding{f.rel, n + 1, fmt.Sprintf("defines %s again (first at line %d); give the decision a new number", m[1], first)})
				}
				defined[m[1]] = n + 1
			}
		}
	}
	if len(defined) == 0 {
		t.Fatalf("%s defines no decision; each is a list item such as \"- S1. …\"", semanticsDoc)
	}
	for _, f := range files {
		if !citesNumbers(f.rel) {
			continue
		}
		for n, line := range f.lines {
			for _, num := range citedNumbers(line) {
				if defined[num] == 0 {
					out = append(out, finding{f.rel, n + 1, fmt.Sprintf("cites %s, which %s does not define; define it there, or cite the decision meant", num, semanticsDoc)})
				}
			}
		}
	}
	report(t, "decision numbers are not defined", out)
}

// citedNumbers returns the decision numbers a line cites, ranges expanded,
// each once, in order.
func citedNumbers(line string) []string {
	var nums []string
	add := func(s string) {
		if !slices.Contains(nums, s) {
			nums = append(nums, s)
		}
	}
	for _, m := range rangeRE.FindAllStringSubmatch(line, -1) {
		if m[3] != "" && m[3] != m[1] {
			continue
		}
		lo, _ := strconv.Atoi(m[2])
		hi, _ := strconv.Atoi(m[4])
		for k := lo; k <= hi && hi-lo <= 100; k++ {
			add(m[1] + strconv.Itoa(k))
		}
	}
	for _, m := range citeRE.FindAllStringSubmatch(line, -1) {
		add(m[1] + m[2])
	}
	return nums
}

// TestDocsCheckersFind: the scans above find what they are for, on lines
// made up here (the repository itself, once clean, shows no finding).
func TestDocsCheckersFind(t *testing.T) {
	lines := []string{
		"# What `planc run` does", "## Cancel", "## Cancel", "### E-RUN-012", "### session_start",
		"See [a](docs/plans.md#cancel), `[not](a-link.md)` and [b](https://example.com).",
		"```", "[in code](gone.md)", "```",
		"[ref]: docs/none.md",
	}
	links := markdownLinks(lines)
	if got, want := fmt.Sprint(links), "map[5:[docs/plans.md#cancel https://example.com] 9:[docs/none.md]]"; got != want {
		t.Errorf("markdownLinks = %s, want %s", got, want)
	}
	anchors := headingAnchors(lines)
	for _, a := range []string{"what-planc-run-does", "cancel", "cancel-1", "e-run-012", "session_start"} {
		if !anchors[a] {
			t.Errorf("headingAnchors lacks %q: %v", a, anchors)
		}
	}
	anchorsOf := func(string) map[string]bool { return anchors }
	for target, bad := range map[string]bool{
		"docs/plans.md#cancel": false, "docs/plans.md#nope": true, "docs/nope.md": true,
		"https://example.com/x.md": false, "../outside.md": true, "#e-run-012": false,
	} {
		if msg := checkLink("README.md", target, anchorsOf); (msg != "") != bad {
			t.Errorf("checkLink(%q) = %q, want a finding: %v", target, msg, bad)
		}
	}
	if got, want := fmt.Sprint(citedNumbers("S1…S3, V12, P4-P5 and S2 again; not S-1 or XS9")), "[S1 S2 S3 P4 P5 V12]"; got != want {
		t.Errorf("citedNumbers = %s, want %s", got, want)
	}
	for _, tc := range []struct {
		rel, line string
		bad       bool
	}{
		{"x/x.go", "// see ../../notes/spec.md", true}, // climbs out of the repository
		{"x/x.go", "// see ../README.md", false},       // climbs, but stays inside
		{"x/x.go", "// planc run (running.md)", true},  // a page without its directory
		{"x/x.go", "// see docs/running.md and README.md", false},
		{"x/x.go", "// the design (design.md)", true},            // no such page
		{"x/x.go", `p := filepath.Join("..", "../x.md")`, false}, // code, not a comment
		{"docs/x.md", "as [running.md](running.md) says", false}, // beside the page
		{"docs/x.md", "see ../../outside/notes.md", true},
		{"x/x.go", "// seed-refresh-fixtures.json", false},
	} {
		if got := outsideFindings(tc.rel, prose(tc.rel, tc.line)); (len(got) > 0) != tc.bad {
			t.Errorf("outsideFindings(%q, %q) = %q, want a finding: %v", tc.rel, tc.line, got, tc.bad)
		}
	}
}
