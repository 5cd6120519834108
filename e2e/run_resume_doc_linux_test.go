package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/planc/planc/internal/testkit"
)

// resumeDoc is the page whose worked example TestResumeDoc keeps true.
const resumeDoc = "../docs/resume.md"

// docStep is one command of docs/resume.md's worked example, shown
// between <!-- resume:NAME:begin --> and <!-- resume:NAME:end --> as a
// console block: the command, then what it prints (standard output and
// error as a terminal shows them).
type docStep struct {
	name string
	line string // the command line, after "$ "
	code int    // planc's exit status
	// do runs the step in dir and returns what it prints; nil runs line's
	// words after "planc" with the planc binary.
	do func(t *testing.T, dir string) string
}

// docBlock returns the text between a marked section's markers in doc.
func docBlock(t *testing.T, doc, name string) (i, j int) {
	t.Helper()
	begin, end := "<!-- resume:"+name+":begin -->\n", "<!-- resume:"+name+":end -->"
	i, j = strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("docs/resume.md lacks the markers %q … %q", begin, end)
	}
	return i + len(begin), j
}

// fenced returns the body of the one fenced block of a marked section.
func fenced(t *testing.T, doc, name string) string {
	t.Helper()
	i, j := docBlock(t, doc, name)
	block := doc[i:j]
	_, body, ok := strings.Cut(block, "\n")
	if !ok || !strings.HasPrefix(block, "```") {
		t.Fatalf("docs/resume.md's %s section is not a fenced block", name)
	}
	body, _, ok = strings.Cut(body, "```")
	if !ok {
		t.Fatalf("docs/resume.md's %s block does not end", name)
	}
	return body
}

var (
	docSessionRE  = regexp.MustCompile(`\d{8}T\d{6}Z-[0-9a-f]{6}`)
	docDurationRE = regexp.MustCompile(`\b\d+(\.\d+)?(ms|s)\b`)
	docSpacesRE   = regexp.MustCompile(` +`)
)

// docNormalise blurs what changes from run to run: session ids,
// durations, and the column widths that change with them.
func docNormalise(s string) string {
	s = docSessionRE.ReplaceAllString(s, "SESSION")
	s = docDurationRE.ReplaceAllString(s, "DURATION")
	return docSpacesRE.ReplaceAllString(s, " ")
}

// TestResumeDoc: docs/resume.md's worked example, run in a fresh
// directory from the capsule and plan the page shows, prints what the page
// shows (session ids and durations aside). -update rewrites the page's
// output blocks.
func TestResumeDoc(t *testing.T) {
	testkit.NeedScope(t)
	t.Parallel()
	bin := plancBin(t)
	raw, err := os.ReadFile(resumeDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "capsule.json", fenced(t, doc, "capsule"), "plan.json", fenced(t, doc, "plan"))
	ls := func(pattern string) func(t *testing.T, dir string) string {
		return func(t *testing.T, dir string) string {
			paths, _ := filepath.Glob(filepath.Join(dir, pattern))
			var b strings.Builder
			for _, p := range paths {
				ents, _ := os.ReadDir(p)
				for _, e := range ents {
					b.WriteString(e.Name() + "\n")
				}
			}
			return b.String()
		}
	}
	steps := []docStep{
		{name: "run", line: "planc run --capsule capsule.json plan.json", code: 1},
		{name: "fix", line: "touch approved", do: func(t *testing.T, dir string) string {
			testkit.WriteFiles(t, dir, "approved", "")
			return ""
		}},
		{name: "resume", line: "planc run --resume --capsule capsule.json"},
		{name: "once", line: "cat side-effects.log", do: func(t *testing.T, dir string) string {
			b, _ := os.ReadFile(filepath.Join(dir, "side-effects.log"))
			return string(b)
		}},
		{name: "trace", line: "planc trace steps"},
		{name: "outputs", line: "ls .planc/sessions/*/outputs/plan-1", do: ls(".planc/sessions/*/outputs/plan-1")},
		{name: "reports", line: "ls .planc/sessions/*/reports", do: ls(".planc/sessions/*/reports")},
		{name: "again", line: "planc run --resume --capsule capsule.json", code: 2},
	}
	for _, s := range steps {
		var out string
		if s.do != nil {
			out = s.do(t, dir)
		} else {
			cmd := exec.Command(bin, strings.Fields(s.line)[1:]...)
			cmd.Dir = dir
			var b bytes.Buffer
			cmd.Stdout, cmd.Stderr = &b, &b // as a terminal shows them
			code := exitCode(t, cmd.Run())
			if code != s.code {
				t.Errorf("%s: exit %d, want %d:\n%s", s.line, code, s.code, b.String())
			}
			out = b.String()
		}
		want := "```console\n$ " + s.line + "\n" + out + "```\n"
		i, j := docBlock(t, doc, s.name)
		if *testkit.Update {
			doc = doc[:i] + want + doc[j:]
			continue
		}
		if got := doc[i:j]; docNormalise(got) != docNormalise(want) {
			t.Errorf("docs/resume.md's resume:%s is stale; run go test ./e2e -run ResumeDoc -update\n--- the page\n%s--- planc prints\n%s", s.name, got, want)
		}
	}
	if *testkit.Update {
		if err := os.WriteFile(resumeDoc, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
