package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/planc/planc/internal/testkit"
)

// picturePlan has a tool step that succeeds, a shell step that fails once
// and succeeds on its retry, a shell step that fails under on_error
// continue, a step skipped by its condition, and a tool step after them
// (the tool lane's second step).
const picturePlan = `{"id": "picture", "steps": [
  {"id": "greet", "tool": "notes", "input": {"body": "hello"}},
  {"id": "flaky", "shell": "sh -c 'test -f flaky.mark || { touch flaky.mark; echo first try; exit 1; }; echo second try'", "retries": 1},
  {"id": "lint", "shell": "sh -c 'echo lint found 2 problems; echo \"<b>&amp;</b>\"; exit 3'", "on_error": "continue"},
  {"id": "lint-log", "tool": "notes", "depends_on": ["lint"], "if": "$lint.status == 'success'", "input": {"body": "$lint.output"}},
  {"id": "summary", "tool": "compose", "depends_on": ["flaky", "greet"], "input": {"template": "flaky said: {out}", "values": {"out": "$flaky.output"}}}
]}`

const pictureCapsule = `{
  "name": "local/shell",
  "capabilities": {"plan": {"submit": true}, "shell": {"allow": ["sh"]}},
  "tools": {"builtin": ["notes", "compose"]}
}`

// runPicture runs picturePlan in a new directory and returns it.
func runPicture(t *testing.T) string {
	t.Helper()
	testkit.NeedScope(t)
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "capsule.json", pictureCapsule, "plan.json", picturePlan)
	if r := planc(t, dir, "--capsule", "capsule.json", "plan.json"); r.code != 0 {
		t.Fatalf("planc run: exit %d, want 0:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	return dir
}

// timesRE matches the durations a drawing shows ("235ms", "1.2s").
var timesRE = regexp.MustCompile(`\b\d+(\.\d+)?(ms|s|m|h)\b`)

// TestTraceGraph draws a real run with planc trace graph, as dot and as
// Mermaid: each step coloured by how it ended, its attempts, the tool
// lane. The golden files have the times replaced by TIME.
func TestTraceGraph(t *testing.T) {
	t.Parallel()
	dir := runPicture(t)
	for _, f := range []struct{ format, golden string }{
		{"dot", "run.dot"},
		{"mermaid", "run.mmd"},
	} {
		r := plancTrace(t, dir, "graph", "--format", f.format)
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("trace graph --format %s: %+v", f.format, r)
		}
		got := timesRE.ReplaceAllString(r.stdout, "TIME")
		testkit.GoldenFile(t, filepath.Join("testdata", "trace", "picture", f.golden), got, "trace graph --format "+f.format)
	}
	// dot is the default, and the session and plan may be named.
	sess := oneSession(t, dir)
	a, b := plancTrace(t, dir, "graph"), plancTrace(t, dir, "graph", filepath.Base(sess), "--plan", "1")
	if a.code != 0 || b.code != 0 || a.stdout != b.stdout || !strings.HasPrefix(a.stdout, "// plan \"picture\" as it ran") {
		t.Errorf("trace graph with and without SESSION --plan 1 differ:\n%+v\n%+v", a, b)
	}
	if dot, err := exec.LookPath("dot"); err == nil {
		cmd := exec.Command(dot, "-Tsvg")
		cmd.Stdin = strings.NewReader(a.stdout)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("dot -Tsvg refuses the drawing: %v\n%s", err, out)
		}
	}
}

// TestTraceGraphUsage: the flags of trace graph and html are refused
// elsewhere, and a plan the session does not have is named.
func TestTraceGraphUsage(t *testing.T) {
	t.Parallel()
	dir := runPicture(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"graph", "--format", "json"}, `invalid value "json" for --format: want dot or mermaid`},
		{[]string{"steps", "--format", "dot"}, `invalid value "dot" for --format: want text or json`},
		{[]string{"steps", "-o", "x.html"}, "-o is for planc trace html, not steps"},
		{[]string{"graph", "--plan", "2"}, "has no plan 2; its plans are 1"},
		{[]string{"html", "--plan", "2"}, "has no plan 2; its plans are 1"},
	} {
		r := plancTrace(t, dir, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("trace %v: %+v, want exit 2 and %q", c.args, r, c.want)
		}
	}
}

// htmlVolatile are the parts of the page that change from run to run.
var htmlVolatile = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`\b(x|width)="\d+\.\d"`), `$1="N"`},
	{regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`), "TIMESTAMP"},
	{regexp.MustCompile(`\d{8}T\d{6}Z-[0-9a-f]{6}`), "SESSION"},
	{timesRE, "TIME"},
}

// TestTraceHTML writes the page of a real run and holds its structure to
// a golden file (positions, times and the session id replaced): the
// summary, one row per step grouped by kind, one bar per attempt, the
// error and the kept output escaped.
func TestTraceHTML(t *testing.T) {
	t.Parallel()
	dir := runPicture(t)
	r := plancTrace(t, dir, "html")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("trace html: %+v", r)
	}
	page := r.stdout
	for _, v := range htmlVolatile {
		page = v.re.ReplaceAllString(page, v.with)
	}
	testkit.GoldenFile(t, filepath.Join("testdata", "trace", "picture", "page.html"), page, "trace html")
	for _, bad := range []string{"<script", "http://", "https://", "<b>&amp;</b>", "ZgotmplZ"} {
		if strings.Contains(r.stdout, bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
	if n := strings.Count(r.stdout, `<rect class="bar"`); n != 5 {
		t.Errorf("the page has %d bars, want 5 (greet, flaky twice, lint, summary)", n)
	}
	if o := plancTrace(t, dir, "html", "-o", "page.html"); o.code != 0 || o.stdout != "" {
		t.Fatalf("trace html -o: %+v", o)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "page.html")); err != nil || string(b) != r.stdout {
		t.Errorf("-o page.html wrote another page (%v)", err)
	}
}

// TestTracePictureRedrive: after planc run --resume, the step the redrive
// reused is marked in both drawings, and the page has a bar for each
// dispatch of either run.
func TestTracePictureRedrive(t *testing.T) {
	testkit.NeedScope(t)
	t.Parallel()
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "capsule.json", pictureCapsule, "plan.json", `{"id": "again", "steps": [
		{"id": "greet", "tool": "notes", "input": {"body": "hello"}},
		{"id": "gate", "shell": "sh -c 'test -f ok.mark'", "depends_on": ["greet"]}
	]}`)
	if r := planc(t, dir, "--capsule", "capsule.json", "plan.json"); r.code != 1 {
		t.Fatalf("planc run: exit %d, want 1:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	testkit.WriteFiles(t, dir, "ok.mark", "")
	if r := planc(t, dir, "--resume", "--capsule", "capsule.json"); r.code != 0 {
		t.Fatalf("planc run --resume: exit %d, want 0:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	dot := plancTrace(t, dir, "graph")
	greet := regexp.MustCompile(`(?m)^  s_greet \[label="greet\\ntool notes\\nsuccess in \S+\\nreused \(redrive\)".*peripheries=2`)
	gate := regexp.MustCompile(`(?m)^  s_gate \[label="gate\\nshell sh -c 'test -f ok.mark'\\nsuccess in \S+\\n2 attempts".*fillcolor="#bbf7d0"`)
	if dot.code != 0 || !greet.MatchString(dot.stdout) || !gate.MatchString(dot.stdout) {
		t.Errorf("trace graph after a redrive: %+v", dot)
	}
	mmd := plancTrace(t, dir, "graph", "--format", "mermaid")
	if mmd.code != 0 || !strings.Contains(mmd.stdout, "    class s_greet reused\n") {
		t.Errorf("trace graph --format mermaid after a redrive: %+v", mmd)
	}
	page := plancTrace(t, dir, "html")
	for _, want := range []string{
		`<div><dt>runs</dt><dd>2</dd></div>`,
		`<title>greet attempt 1: success after `,
		`<title>gate attempt 1: failed after `,
		`<title>gate attempt 2 (redrive 1): success after `,
		`</span>reused</span>`,
	} {
		if page.code != 0 || !strings.Contains(page.stdout, want) {
			t.Errorf("trace html after a redrive lacks %q:\n%s", want, page.stdout)
		}
	}
	if n := strings.Count(page.stdout, `<rect class="bar"`); n != 3 {
		t.Errorf("the page has %d bars, want 3 (greet once, gate twice)", n)
	}
}
