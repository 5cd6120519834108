package golden

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

// readmePath is the README whose tour this file keeps true.
const readmePath = "../README.md"

// tourStep is one command of the README's tour, shown between the markers
// <!-- tour:NAME:begin --> and <!-- tour:NAME:end --> as a console block:
// the command line, then what it prints on standard output.
type tourStep struct {
	name string
	args []string // after "planc"
	code int      // its exit status
	// sandbox runs the command in the tour's scratch directory, a copy of
	// examples/ in which planc run may write its session and files;
	// otherwise it runs in the repository's root, where it reads only.
	sandbox bool
	// mermaid shows the output a second time as a mermaid block, which
	// GitHub draws.
	mermaid bool
}

// tour is the README's tour, in order: the steps that share the sandbox
// run one after another in it (trace reads the session run left).
var tour = []tourStep{
	{name: "check", args: []string{"check", "--capsule", "examples/capsule.json", "golden/testdata/check/err/five-mistakes.json"}, code: 1},
	{name: "dump-ir", args: []string{"dump-ir", "--capsule", "examples/capsule.json", "examples/refresh-fixtures.json"}},
	{name: "graph", args: []string{"graph", "--capsule", "examples/capsule.json", "--format", "mermaid", "examples/fan-out.json"}, mermaid: true},
	{name: "dry-run", args: []string{"run", "--dry-run", "--capsule", "examples/capsule.json", "examples/fan-out.json"}},
	{name: "run", args: []string{"run", "examples/hello.json"}, sandbox: true},
	{name: "trace", args: []string{"trace", "steps"}, sandbox: true},
}

// tourBlock is what the README shows for one step: a console block with
// the command line and its output, and for a mermaid step the drawing.
func tourBlock(s tourStep, stdout string) string {
	b := "```console\n$ planc " + strings.Join(s.args, " ") + "\n" + stdout + "```\n"
	if s.mermaid {
		b += "\n```mermaid\n" + stdout + "```\n"
	}
	return b
}

// volatile matches what changes from one run to the next: session ids,
// timestamps and durations.
var volatile = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`\d{8}T\d{6}Z-[0-9a-f]{6}`), "SESSION"},
	{regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`), "TIME"},
	{regexp.MustCompile(`\b(\d+h)?(\d+m)?\d+(\.\d+)?(ms|s)\b`), "DURATION"},
	{regexp.MustCompile(` +`), " "}, // columns widen with a duration
	{regexp.MustCompile(`(?m) $`), ""},
}

// normalise replaces the volatile parts of s.
func normalise(s string) string {
	for _, v := range volatile {
		s = v.re.ReplaceAllString(s, v.with)
	}
	return s
}

// TestReadmeTour: every command of the README's tour prints what the
// README shows (session ids, timestamps and durations aside), with the
// exit status it should have and nothing on standard error. -update
// rewrites the README's blocks from what the commands print.
func TestReadmeTour(t *testing.T) {
	bin := testkit.PlancBinary(t)
	raw, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	sandbox := t.TempDir()
	testkit.CopyTree(t, filepath.Join(root, "examples"), filepath.Join(sandbox, "examples"))

	for _, s := range tour {
		cmd := exec.Command(bin, s.args...)
		cmd.Dir = root
		if s.sandbox {
			cmd.Dir = sandbox
		}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if code != s.code || stderr.Len() > 0 {
			t.Errorf("planc %s: exit %d (want %d), stderr:\n%s", strings.Join(s.args, " "), code, s.code, stderr.String())
		}
		begin, end := "<!-- tour:"+s.name+":begin -->\n", "<!-- tour:"+s.name+":end -->"
		i, j := strings.Index(readme, begin), strings.Index(readme, end)
		if i < 0 || j < i {
			t.Errorf("README.md lacks the markers %q … %q", begin, end)
			continue
		}
		want := tourBlock(s, stdout.String())
		if *testkit.Update {
			readme = readme[:i+len(begin)] + want + readme[j:]
			continue
		}
		if got := readme[i+len(begin) : j]; normalise(got) != normalise(want) {
			t.Errorf("README.md's tour:%s is stale; run go test ./golden -run ReadmeTour -update\n--- README\n%s--- planc prints\n%s", s.name, got, want)
		}
	}
	if *testkit.Update {
		if err := os.WriteFile(readmePath, []byte(readme), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestNormalise: the volatile parts of a tour block are the only ones
// normalise blurs.
func TestNormalise(t *testing.T) {
	a := "hello  list   1   success  12ms\nsession 20250102T150405Z-a1b2c3 started 2025-01-02T15:04:05.012345678Z took 1.5s\n"
	b := "hello  list   1   success  0ms \nsession 20991231T235959Z-ffffff started 2099-12-31T23:59:59.000000001Z took 2m3.25s\n"
	if normalise(a) != normalise(b) {
		t.Errorf("normalise:\n%q\n%q", normalise(a), normalise(b))
	}
	if normalise("success") == normalise("failed") || normalise("plan-1.json") == normalise("plan-2.json") {
		t.Error("normalise blurs what is not volatile")
	}
}
