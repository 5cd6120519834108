package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The command lines the README and docs/cli.md show without a prompt (a sh
// block, an indented block), each run as shown; golden's docCommands names
// these tests.

// TestReadmeQuickStart: the README's first command, `go run ./cmd/planc
// run examples/hello.json` (the built planc standing in for go run), with
// the embedded default capsule: it prints the report JSON, the plan
// completes, and it leaves the session the README lists — trace.jsonl,
// the plan file, notes.md, the kept report and each step's output — of
// which `go run ./cmd/planc trace logs note` prints one.
func TestReadmeQuickStart(t *testing.T) {
	t.Parallel()
	dir := repoCopy(t, "examples")
	const line = "go run ./cmd/planc run examples/hello.json"
	args := strings.Fields(strings.TrimPrefix(line, "go run ./cmd/planc "))
	stdout, stderr, code := runIn(t, dir, args...)
	if code != 0 || stderr != "" {
		t.Fatalf("%s: exit %d, stderr:\n%s", line, code, stderr)
	}
	rep := runOut{stdout: stdout}.report(t)
	if !rep.Completed || len(rep.Steps) != 4 {
		t.Errorf("the report: completed %v, %d steps", rep.Completed, len(rep.Steps))
	}
	sess := oneSession(t, dir)
	for _, f := range []string{"trace.jsonl", "plans/plan-1.json", "notes.md", "reports/plan-1.json", "outputs/plan-1/note"} {
		if m, _ := filepath.Glob(filepath.Join(sess, f+"*")); len(m) == 0 {
			t.Errorf("the session lacks %s", f)
		}
	}
	stdout, stderr, code = runIn(t, dir, "trace", "logs", "note")
	if code != 0 || stderr != "" || !regexp.MustCompile(`^==> note, attempt 1: success after \S+ <==\nappended \d+ bytes to notes.md\n$`).MatchString(stdout) {
		t.Errorf("planc trace logs note: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestDocsGraphDot: docs/cli.md's `planc graph plan.json | dot -Tsvg -o
// plan.svg` (plan.json being examples/hello.json) and the README's `planc
// graph --capsule examples/capsule.json examples/fan-out.json | dot -Tsvg
// -o fan-out.svg`, run by sh as shown with the built planc on PATH in a
// copy of examples/, each write an SVG picture of the plan.
func TestDocsGraphDot(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("dot"); err != nil {
		t.Skip("no Graphviz dot here")
	}
	for _, c := range []struct{ line, svg, first, last string }{
		{"planc graph plan.json | dot -Tsvg -o plan.svg", "plan.svg", ">list", ">note"},
		{"planc graph --capsule examples/capsule.json examples/fan-out.json | dot -Tsvg -o fan-out.svg", "fan-out.svg", ">files", ">report"},
	} {
		dir := t.TempDir()
		copyExamples(t, "../examples", filepath.Join(dir, "examples"))
		b, err := os.ReadFile("../examples/hello.json")
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, "plan.json"), string(b))
		cmd := exec.Command("sh", "-c", c.line)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(plancBin(t))+string(os.PathListSeparator)+os.Getenv("PATH"))
		if out, err := cmd.CombinedOutput(); err != nil || len(out) != 0 {
			t.Fatalf("%s: %v\n%s", c.line, err, out)
		}
		svg, err := os.ReadFile(filepath.Join(dir, c.svg))
		// An SVG of the plan: a node per step, which dot would not draw had
		// planc printed nothing.
		if err != nil || !strings.Contains(string(svg), "<svg") || !strings.Contains(string(svg), c.first) || !strings.Contains(string(svg), c.last) {
			t.Errorf("%s: %s is no SVG of the plan (%v):\n%.300s", c.line, c.svg, err, svg)
		}
	}
}

// TestDocsInitTrust: docs/cli.md's `planc init`, `planc trust` and `planc
// trust sub/.planc/capsule.json`, run as shown: init writes and trusts
// the project's manifest and says to commit it and to ignore the
// sessions, and planc check under it prints docs/manifest.md's refusals;
// an edit makes commands refuse it with the message the page shows until
// `planc trust`; a manifest in sub/ is refused there until
// `planc trust sub/.planc/capsule.json` from the root.
func TestDocsInitTrust(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	r := plancAt(t, dir, "init")
	if r.code != 0 || !strings.Contains(r.stderr+r.stdout, "commit .planc/capsule.json") || !strings.Contains(r.stderr+r.stdout, `".planc/sessions/" to .gitignore`) {
		t.Fatalf("planc init: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	manifest := filepath.Join(dir, ".planc", "capsule.json")
	if r := plancAt(t, dir, "tools"); r.code != 0 {
		t.Errorf("planc tools under the manifest init wrote: exit %d %s", r.code, r.stderr)
	}
	// docs/manifest.md's refusals that a grant would lift, as planc check
	// prints them under the manifest init wrote (a plan laid out to give
	// the page's columns).
	doc, err := os.ReadFile("../docs/manifest.md")
	if err != nil {
		t.Fatal(err)
	}
	var shown []string
	for _, l := range strings.Split(string(doc), "\n") {
		if c, ok := strings.CutPrefix(l, "    plan.json:"); ok {
			shown = append(shown, "plan.json:"+c)
		}
	}
	writeFile(t, filepath.Join(dir, "plan.json"), `{"id": "p", "steps": [
  {"id": "build", "shell": "go build ./..."},
  {"id": "f", "tool": "fetch", "input": {}}
]}
`)
	r = plancAt(t, dir, "check", "plan.json")
	var printed []string
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(l, "plan.json:") {
			printed = append(printed, l)
		}
	}
	if len(shown) != 2 || r.code != 1 || strings.Join(printed, "\n") != strings.Join(shown, "\n") {
		t.Errorf("planc check under the manifest init wrote: exit %d\n%s\ndocs/manifest.md shows:\n%s", r.code, strings.Join(printed, "\n"), strings.Join(shown, "\n"))
	}
	if err := os.Remove(filepath.Join(dir, "plan.json")); err != nil {
		t.Fatal(err)
	}
	orig, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(manifest, append(orig, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	const changed = `planc tools: capsule manifest: .planc/capsule.json (found from the current directory) has changed since you trusted it: read what changed, then run "planc trust .planc/capsule.json" (or name it with --capsule)`
	if r := plancAt(t, dir, "tools"); r.code != 2 || !strings.Contains(r.stderr, changed) {
		t.Errorf("planc tools after an edit: exit %d, stderr %q; want 2 and %q", r.code, r.stderr, changed)
	}
	if r := plancAt(t, dir, strings.Fields("planc trust")[1:]...); r.code != 0 || !strings.HasPrefix(r.stdout+r.stderr, "trusted .planc/capsule.json (sha256 ") {
		t.Fatalf("planc trust: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := plancAt(t, dir, "tools"); r.code != 0 {
		t.Errorf("planc tools once trusted: exit %d %s", r.code, r.stderr)
	}

	// sub/ gets a manifest of its own, which nobody trusted yet.
	if err := os.MkdirAll(filepath.Join(sub, ".planc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, ".planc", "capsule.json"), orig, 0o644); err != nil {
		t.Fatal(err)
	}
	if r := plancAt(t, sub, "tools"); r.code != 2 || !strings.Contains(r.stderr, "is not trusted") {
		t.Errorf("planc tools in sub/ before trust: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := plancAt(t, dir, strings.Fields("planc trust sub/.planc/capsule.json")[1:]...); r.code != 0 || !strings.HasPrefix(r.stdout+r.stderr, "trusted sub/.planc/capsule.json (sha256 ") {
		t.Fatalf("planc trust sub/.planc/capsule.json: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := plancAt(t, sub, "tools"); r.code != 0 {
		t.Errorf("planc tools in sub/ once trusted: exit %d %s", r.code, r.stderr)
	}
}
