package golden

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// The repository must explain itself: these tests hold every file of it to
// the documents it has. They read files only; no planc binary is built.

// repoRoot is the repository's root, seen from this package.
const repoRoot = ".."

// exempt are the files the scans skip: these tests, which spell out what
// they look for.
var exempt = []string{"golden/docs_test.go", "golden/docs_refs_test.go"}

// semanticsDoc defines every S-, P- and V-number the repository cites.
const semanticsDoc = "docs/semantics.md"

// repoFile is one text file of the repository, by its slash-separated path
// from the root.
type repoFile struct {
	rel   string
	lines []string
}

// finding is one offending line and its fix.
type finding struct {
	file string
	line int
	msg  string
}

// repoFiles returns every text file of the repository, sorted, without
// .git, the sessions planc leaves (.planc), node_modules, fuzz corpora and
// binary files.
func repoFiles(t *testing.T) []repoFile {
	t.Helper()
	var files []repoFile
	err := filepath.WalkDir(repoRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repoRoot, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			switch d.Name() {
			case ".git", ".planc", "node_modules":
				return filepath.SkipDir
			}
			if strings.HasSuffix(rel, "testdata/fuzz") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || slices.Contains(exempt, rel) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if len(b) > 4<<20 || bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b) {
			return nil // not text
		}
		files = append(files, repoFile{rel: rel, lines: strings.Split(string(b), "\n")})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// report fails t with every finding, one file:line a line, sorted.
func report(t *testing.T, what string, fs []finding) {
	t.Helper()
	if len(fs) == 0 {
		return
	}
	slices.SortFunc(fs, func(a, b finding) int {
		if c := strings.Compare(a.file, b.file); c != 0 {
			return c
		}
		return a.line - b.line
	})
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s:\n", len(fs), what)
	for _, f := range fs {
		fmt.Fprintf(&b, "  %s:%d: %s\n", f.file, f.line, f.msg)
	}
	t.Error(b.String())
}

// isDoc reports whether rel is a document whose links are checked: the
// README and every Markdown file under docs/.
func isDoc(rel string) bool {
	return rel == "README.md" || strings.HasPrefix(rel, "docs/") && strings.HasSuffix(rel, ".md")
}

// TestDocsLinks: every relative link of the README and docs/ reaches a file
// that exists, and a #fragment a heading or anchor of that file.
func TestDocsLinks(t *testing.T) {
	files := repoFiles(t)
	byName := map[string]repoFile{}
	for _, f := range files {
		byName[f.rel] = f
	}
	anchors := map[string]map[string]bool{}
	anchorsOf := func(rel string) map[string]bool {
		if a, ok := anchors[rel]; ok {
			return a
		}
		a := headingAnchors(byName[rel].lines)
		anchors[rel] = a
		return a
	}
	var out []finding
	for _, f := range files {
		if !isDoc(f.rel) {
			continue
		}
		for n, target := range markdownLinks(f.lines) {
			for _, tg := range target {
				if msg := checkLink(f.rel, tg, anchorsOf); msg != "" {
					out = append(out, finding{f.rel, n + 1, msg})
				}
			}
		}
	}
	report(t, "broken relative links", out)
}

// checkLink returns why the link target from the document rel does not
// resolve, or "".
func checkLink(rel, target string, anchorsOf func(string) map[string]bool) string {
	if schemeRE.MatchString(target) || strings.HasPrefix(target, "//") {
		return "" // a URL: not ours to check
	}
	file, frag, _ := strings.Cut(target, "#")
	dest := rel
	if file != "" {
		dest = path.Clean(path.Join(path.Dir(rel), file))
		if strings.HasPrefix(dest, "../") || dest == ".." {
			return fmt.Sprintf("link %q leaves the repository; link a document inside it", target)
		}
		if _, err := os.Stat(filepath.Join(repoRoot, filepath.FromSlash(dest))); err != nil {
			return fmt.Sprintf("link %q: %s does not exist; fix the path or write the document", target, dest)
		}
	}
	if frag != "" && strings.HasSuffix(dest, ".md") && !anchorsOf(dest)[frag] {
		return fmt.Sprintf("link %q: %s has no heading or anchor %q; link an existing heading's anchor", target, dest, "#"+frag)
	}
	return ""
}

var (
	schemeRE  = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)
	fenceRE   = regexp.MustCompile("^\\s{0,3}(```|~~~)")
	linkRE    = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	refDefRE  = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?`)
	headingRE = regexp.MustCompile(`^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$`)
	htmlIDRE  = regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`)
	mdLinkRE  = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
)

// markdownLinks returns the link targets of each line (by line index),
// outside fenced code blocks and code spans.
func markdownLinks(lines []string) map[int][]string {
	links := map[int][]string{}
	for i, line := range proseLines(lines) {
		line = stripCodeSpans(line)
		for _, m := range linkRE.FindAllStringSubmatch(line, -1) {
			links[i] = append(links[i], m[1])
		}
		if m := refDefRE.FindStringSubmatch(line); m != nil {
			links[i] = append(links[i], m[1])
		}
	}
	return links
}

// proseLines returns lines with those inside fenced code blocks blanked.
func proseLines(lines []string) []string {
	out := make([]string, len(lines))
	fence := ""
	for i, line := range lines {
		if m := fenceRE.FindStringSubmatch(line); m != nil {
			switch {
			case fence == "":
				fence = m[1]
				continue
			case m[1] == fence:
				fence = ""
				continue
			}
		}
		if fence == "" {
			out[i] = line
		}
	}
	return out
}

// stripCodeSpans removes `code spans` (of any number of backticks) from a
// line, so that what they quote is not read as links or names.
func stripCodeSpans(line string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(line, '`')
		if i < 0 {
			return b.String() + line
		}
		n := i
		for n < len(line) && line[n] == '`' {
			n++
		}
		ticks := line[i:n]
		j := strings.Index(line[n:], ticks)
		if j < 0 {
			return b.String() + line
		}
		b.WriteString(line[:i])
		line = line[n+j+len(ticks):]
	}
}

// headingAnchors returns the fragments a document's headings get (as
// GitHub makes them: lower case, punctuation dropped, spaces to hyphens,
// repeats numbered) and its explicit <a id> and <a name> anchors.
func headingAnchors(lines []string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	for _, line := range proseLines(lines) {
		for _, m := range htmlIDRE.FindAllStringSubmatch(line, -1) {
			anchors[m[1]] = true
		}
		m := headingRE.FindStringSubmatch(line)
		if m == nil || strings.HasPrefix(strings.TrimSpace(line), "#!") {
			continue
		}
		slug := slugify(m[1])
		if k := seen[slug]; k > 0 {
			anchors[slug+"-"+strconv.Itoa(k)] = true
		} else {
			anchors[slug] = true
		}
		seen[slug]++
	}
	return anchors
}

// slugify turns a heading's text into its anchor.
func slugify(text string) string {
	text = mdLinkRE.ReplaceAllString(text, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
