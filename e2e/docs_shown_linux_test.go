package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/planc/planc/internal/testkit"
)

// shownSection is a console block of a document, between
// <!-- shown:NAME:begin --> and <!-- shown:NAME:end -->: lines "$ planc
// ARGS" each followed by what the command prints (standard output, then
// standard error), run one after another in a scratch copy of examples/.
type shownSection struct {
	doc, name string
	scope     bool // it runs shell steps: it needs a cgroup scope
}

var shownSections = []shownSection{
	{doc: "../docs/plans.md", name: "compose", scope: true},
	{doc: "../docs/cli.md", name: "tools"},
	{doc: "../docs/cli.md", name: "trace-picture", scope: true},
}

var shownVolatile = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`\d{8}T\d{6}Z-[0-9a-f]{6}`), "SESSION"},
	{regexp.MustCompile(`\b\d+(\.\d+)?(ms|s)\b`), "DURATION"},
}

func shownNormalise(s string) string {
	for _, v := range shownVolatile {
		s = v.re.ReplaceAllString(s, v.with)
	}
	return s
}

// TestDocsShown: every command a shown section of the docs gives prints
// what the section shows (session ids and durations aside); -update
// rewrites the sections from what the commands print.
func TestDocsShown(t *testing.T) {
	t.Parallel()
	for _, sec := range shownSections {
		t.Run(sec.name, func(t *testing.T) {
			if sec.scope {
				testkit.NeedScope(t)
			}
			raw, err := os.ReadFile(sec.doc)
			if err != nil {
				t.Fatal(err)
			}
			begin, end := "<!-- shown:"+sec.name+":begin -->\n", "<!-- shown:"+sec.name+":end -->"
			i, j := strings.Index(string(raw), begin), strings.Index(string(raw), end)
			if i < 0 || j < i {
				t.Fatalf("%s lacks %q … %q", sec.doc, begin, end)
			}
			block := string(raw[i+len(begin) : j])
			var cmds []string
			for _, l := range strings.Split(block, "\n") {
				if c, ok := strings.CutPrefix(l, "$ planc "); ok {
					cmds = append(cmds, c)
				}
			}
			if len(cmds) == 0 {
				t.Fatalf("%s's %s section shows no command", sec.doc, sec.name)
			}
			dir := t.TempDir()
			copyExamples(t, "../examples", filepath.Join(dir, "examples"))
			var b strings.Builder
			b.WriteString("```console\n")
			for _, c := range cmds {
				r := plancIn(t, dir, strings.Fields(c)...)
				if r.code != 0 {
					t.Errorf("planc %s: exit %d\n%s", c, r.code, r.stderr)
				}
				b.WriteString("$ planc " + c + "\n" + r.stdout + r.stderr)
			}
			b.WriteString("```\n")
			got := b.String()
			if *testkit.Update {
				doc := string(raw[:i+len(begin)]) + got + string(raw[j:])
				if err := os.WriteFile(sec.doc, []byte(doc), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if shownNormalise(got) != shownNormalise(block) {
				t.Errorf("%s's %s section is stale (go test -update rewrites it)\n--- shown\n%s\n--- printed\n%s", sec.doc, sec.name, block, got)
			}
		})
	}
}

// copyExamples copies the regular files under src into dst.
func copyExamples(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestDocsSynopses: the one-line synopsis of a command that docs/cli.md
// and the README show is the usage line `planc CMD --help` prints.
func TestDocsSynopses(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{"../docs/cli.md", "../README.md"} {
		raw, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, cmd := range []string{"check", "tools", "dump-ir", "graph", "serve"} {
			help := plancAt(t, t.TempDir(), cmd, "--help")
			usage, _, _ := strings.Cut(help.stdout, "\n")
			usage, ok := strings.CutPrefix(usage, "usage: ")
			if help.code != 0 || !ok {
				t.Fatalf("planc %s --help: exit %d\n%s%s", cmd, help.code, help.stdout, help.stderr)
			}
			var shown []string
			for _, l := range strings.Split(string(raw), "\n") {
				if s, ok := strings.CutPrefix(l, "    planc "+cmd+" "); ok && strings.HasPrefix(s, "[") || ok && cmd == "serve" && strings.HasPrefix(s, "--mcp [") {
					shown = append(shown, strings.TrimSpace(l))
				}
			}
			if doc == "../docs/cli.md" && len(shown) == 0 {
				t.Errorf("%s shows no synopsis of planc %s", doc, cmd)
			}
			for _, s := range shown {
				if s != usage {
					t.Errorf("%s shows\n\t%s\nplanc %s --help prints\n\t%s", doc, s, cmd, usage)
				}
			}
		}
	}
}
