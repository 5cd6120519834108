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

// outsideName is a way of naming a document that is not in the repository,
// and what to write instead.
type outsideName struct {
	re *regexp.Regexp
	// allowed reports whether the match at [i, j) of line in file f names
	// a document of the repository after all; nil: never.
	allowed func(f repoFile, line string, i, j int) bool
	// fix says what to write instead, given the line and, around it, the
	// lines before and after.
	fix func(line, around string) string
}

// outsideNames are the design notes the project was built from and that a
// reader of the repository never sees. The repository's own documents
// replace them: docs/plans.md the specification, docs/semantics.md its
// decisions, docs/cli.md the command line, docs/running.md the runtime.
var outsideNames = []outsideName{
	{re: regexp.MustCompile(`(\.\./)+shared/|\bshared/(seed|design)/`),
		fix: func(l, a string) string {
			return "names a file outside the repository; " + specFix(l, a, "cite the repository's own document")
		}},
	{re: regexp.MustCompile(`\bplans\.txt\b`),
		fix: func(l, a string) string {
			return "names the specification's file; " + specFix(l, a, "cite docs/plans.md")
		}},
	{re: regexp.MustCompile(`(?i)\bthe seed\b|\bseed's\b`),
		fix: func(l, a string) string {
			return `names "the seed" as a document; ` + specFix(l, a, "cite docs/plans.md")
		}},
	{re: regexp.MustCompile(`\bruntime\.md\b`),
		fix: func(l, a string) string { return "names the design notes' runtime page; " + runtimeFix(l, a) }},
	{re: regexp.MustCompile(`\bcontainment\.md\b`),
		fix: func(string, string) string {
			return "names the design notes' containment page; cite docs/security.md, or docs/running.md for the shell steps' protection"
		}},
	{re: regexp.MustCompile(`\barchitecture\.md\b`),
		fix: func(string, string) string {
			return "names the design notes' architecture page; cite the package's place in the flow (its package comment, docs/embedding.md)"
		}},
	{re: regexp.MustCompile(`\bcli\.md\b`),
		allowed: func(f repoFile, line string, i, _ int) bool {
			return strings.HasSuffix(line[:i], "docs/") ||
				strings.HasPrefix(f.rel, "docs/") && strings.HasSuffix(f.rel, ".md")
		},
		fix: func(string, string) string { return `names the design notes' command-line page; write "docs/cli.md"` }},
}

// specSections are the sections of docs/plans.md, by words of a line that
// cites the specification, in the order they are tried.
var specSections = []struct {
	words []string
	fix   string
}{
	{[]string{"cancel", "numbered list"}, `cite docs/plans.md, "Cancel" (S22, S30)`},
	{[]string{"failure"}, `cite docs/plans.md, "Failure" (S18)`},
	{[]string{"may reach"}, `cite docs/plans.md, "Step refusals"`},
	{[]string{"report"}, `cite docs/plans.md, "The report"`},
	{[]string{"refusal", "list"}, `cite docs/plans.md, "What is refused before anything runs"`},
	{[]string{"shape", "fields", "required", "does not define"}, `cite docs/plans.md, "The plan" and "Steps"`},
	{[]string{"example"}, `cite docs/plans.md, "An example"`},
}

// specFix picks the section of docs/plans.md that a line citing the
// specification most likely means, from the line itself and then from the
// lines around it; dflt when none fits.
func specFix(line, around, dflt string) string {
	for _, text := range []string{line, around} {
		l := strings.ToLower(text)
		for _, s := range specSections {
			for _, w := range s.words {
				if strings.Contains(l, w) {
					return s.fix
				}
			}
		}
	}
	return dflt
}

// runtimeFix picks the repository's page for a section of the design
// notes' runtime page, from the line and then from the lines around it.
func runtimeFix(line, around string) string {
	if fix := runtimeSection(line); fix != "" {
		return fix
	}
	if fix := runtimeSection(around); fix != "" {
		return fix
	}
	return "cite docs/running.md (or the page of docs/ that holds the subject)"
}

// runtimeSection is runtimeFix for one text; "" when no section fits.
func runtimeSection(context string) string {
	for _, s := range []struct{ section, doc string }{
		{"Session and", "docs/running.md, \"The session directory\""},
		{"Capsule manifest", "docs/manifest.md"},
		{"Refusals of", "docs/plans.md, \"Step refusals\""},
		{"Shell steps", "docs/running.md, \"Shell steps and the cgroup scope\""},
		{"Capsules, the roost", "docs/capsules.md"},
		{`"Trace"`, "docs/trace.md"},
		{"trace", "docs/trace.md"},
		{"event", "docs/trace.md"},
		{`"Tools"`, "docs/mcp.md (MCP servers) or docs/plans.md, \"Tool steps\" (built-in tools)"},
		{"cgroup", "docs/running.md, \"The cgroup scope\""},
	} {
		if strings.Contains(context, s.section) {
			return "cite " + s.doc
		}
	}
	return ""
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
			around := strings.Join(f.lines[max(n-1, 0):min(n+2, len(f.lines))], " ")
			for _, o := range outsideNames {
				for _, m := range o.re.FindAllStringIndex(line, -1) {
					if o.allowed != nil && o.allowed(f, line, m[0], m[1]) {
						continue
					}
					msg := fmt.Sprintf("%q %s", line[m[0]:m[1]], o.fix(line, around))
					if f.rel == "README.md" && strings.HasPrefix(line, "| `") {
						msg += " (the codes table is made from the rules' Doc strings: fix the rule's, then go test ./golden -update)"
					}
					out = append(out, finding{f.rel, n + 1, msg})
				}
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
// can match outsideNames or docPathRE.
func mayNameOutside(line string) bool {
	for _, s := range []string{".md", ".json", "shared/", ".txt", "seed", "Seed", "SEED"} {
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
	goFile := repoFile{rel: "x/x.go"}
	for line, bad := range map[string]bool{
		"// see ../shared/seed/plans.txt": true, "// planc run (cli.md)": true, "// the seed's report": true,
		"// runtime.md, \"Trace\"": true, "// docs/cli.md": false, "seed := rng.Uint64()": false,
		"// seed-refresh-fixtures.json": false,
	} {
		found := false
		for _, o := range outsideNames {
			for _, m := range o.re.FindAllStringIndex(line, -1) {
				found = found || o.allowed == nil || !o.allowed(goFile, line, m[0], m[1])
			}
		}
		if found != bad {
			t.Errorf("outsideNames on %q: found %v, want %v", line, found, bad)
		}
	}
}
