package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/internal/testkit"
)

// The README's and docs' examples that run planc on the repository's own
// examples (the MCP server, the roost) are run here exactly as the pages
// show them, in a scratch copy of what they read, so that a change that
// breaks one fails the suite.

// docFile reads a page of the repository.
func docFile(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// consoleBlock returns the lines a fenced block of page shows after the
// command line start (which it must hold).
func consoleBlock(t *testing.T, page, name, start string) string {
	t.Helper()
	i := strings.Index(page, start)
	if i < 0 {
		t.Fatalf("%s has no block starting %q", name, start)
	}
	body, _, ok := strings.Cut(page[i+len(start):], "```")
	if !ok {
		t.Fatalf("%s: the block starting %q does not end", name, start)
	}
	return body
}

// excerptSteps parses an excerpt of a report's steps as the README shows
// it: step objects, one or two lines each, separated by commas.
func excerptSteps(t *testing.T, excerpt string) []map[string]any {
	t.Helper()
	text := "[" + strings.TrimSuffix(strings.TrimSpace(excerpt), ",") + "]"
	var steps []map[string]any
	if err := json.Unmarshal([]byte(text), &steps); err != nil {
		t.Fatalf("the excerpt is not step objects: %v\n%s", err, excerpt)
	}
	return steps
}

// reportSteps returns the steps of a report as generic JSON.
func reportSteps(t *testing.T, stdout string) []map[string]any {
	t.Helper()
	var rep struct {
		Steps []map[string]any `json:"steps"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("the report is not JSON: %v\n%s", err, stdout)
	}
	return rep.Steps
}

// repoCopy copies rels (files or directories of the repository) into a
// fresh directory and returns it.
func repoCopy(t *testing.T, rels ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, rel := range rels {
		testkit.CopyTree(t, filepath.Join("..", rel), filepath.Join(dir, rel))
	}
	return dir
}

// runIn runs planc with args in dir and returns stdout, stderr and the
// exit status.
func runIn(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(plancBin(t), args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	code := exitCode(t, cmd.Run())
	return stdout.String(), stderr.String(), code
}

// TestReadmeMCPExample: the README's and docs/mcp.md's MCP example, run
// from a copy of the repository's examples as the pages show it, prints
// what they show and completes; the README's `trace logs note` then
// prints the note step's output from that run.
func TestReadmeMCPExample(t *testing.T) {
	testkit.NeedScope(t)
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the example's manifest starts its server with go run")
	}
	t.Parallel()
	// go run ./examples/mcp/server needs the module around it.
	dir := repoCopy(t, "go.mod", "go.sum", "examples")
	// The manifest starts the server with go run, which must answer within
	// the start timeout: build it once first (go run keeps what it built),
	// as docs/mcp.md tells a reader to.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	warm := exec.CommandContext(ctx, "go", "run", "./examples/mcp/server")
	warm.Dir, warm.Stdin = dir, strings.NewReader("")
	if out, err := warm.CombinedOutput(); err != nil {
		t.Fatalf("go run ./examples/mcp/server: %v\n%s", err, out)
	}

	const line = "planc run --capsule examples/mcp/capsule.json examples/mcp/plan.json"
	stdout, stderr, code := runIn(t, dir, strings.Fields(line)[1:]...)
	if code != 0 || stderr != "" {
		t.Fatalf("%s: exit %d, stderr:\n%s", line, code, stderr)
	}
	readme := excerptSteps(t, consoleBlock(t, docFile(t, "README.md"), "README.md", "```console\n$ "+line+"\n"))
	if d := cmp.Diff(readme, reportSteps(t, stdout)); d != "" {
		t.Errorf("README.md's MCP example is stale (-README +planc prints):\n%s", d)
	}
	page := consoleBlock(t, docFile(t, "docs/mcp.md"), "docs/mcp.md", "```\n$ go run ./cmd/planc "+strings.TrimPrefix(line, "planc ")+"\n")
	if d := cmp.Diff(page, stdout); d != "" {
		t.Errorf("docs/mcp.md's example is stale (-page +planc prints):\n%s", d)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "mcp-demo.txt")); err != nil || string(b) != "hello from an MCP server\nhello from an MCP server" {
		t.Errorf("save wrote %q (%v)", b, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "examples", "mcp", "data", "greeting.txt")); string(b) != "hello from examples/mcp/data\n" {
		t.Errorf("the read-only greeting.txt was changed: %q", b)
	}

	// The README: `go run ./cmd/planc trace logs note` prints one output.
	stdout, stderr, code = runIn(t, dir, "trace", "logs", "note")
	if code != 0 || stderr != "" || !regexp.MustCompile(`^==> note, attempt 1: success after \S+ <==\nappended 29 bytes to notes.md\n$`).MatchString(stdout) {
		t.Errorf("planc trace logs note: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// goCount is what examples/roost/local/worker/count-go.sh answers for
// dir: its Go files and their lines.
func goCount(t *testing.T, root, dir string) string {
	t.Helper()
	files, lines := 0, 0
	err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		b, err := os.ReadFile(p)
		files++
		lines += bytes.Count(b, []byte("\n"))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir + ": " + itoa(files) + " Go files, " + itoa(lines) + " lines\n"
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestReadmeCapsulesExample: the README's and docs/capsules.md's capsule
// example runs as they show it; the steps they quote settle as quoted,
// each worker's count being that of its directory (the numbers move with
// the code, so the pages' numbers are not compared).
func TestReadmeCapsulesExample(t *testing.T) {
	testkit.NeedScope(t)
	t.Parallel()
	dir := repoCopy(t, "examples", "vm", "host", "parser")
	const line = "planc run --roost examples/roost --capsule examples/capsule.json examples/capsules.json"
	stdout, stderr, code := runIn(t, dir, strings.Fields(line)[1:]...)
	if code != 0 || stderr != "" {
		t.Fatalf("%s: exit %d, stderr:\n%s", line, code, stderr)
	}
	got := map[string]map[string]any{}
	for _, s := range reportSteps(t, stdout) {
		got[s["step_id"].(string)] = s
	}
	counted := regexp.MustCompile(`^\w+: \d+ Go files, \d+ lines\n$`)
	check := func(page string, quoted []map[string]any) {
		if len(quoted) == 0 {
			t.Errorf("%s quotes no step", page)
		}
		for _, q := range quoted {
			id, _ := q["step_id"].(string)
			g, ok := got[id]
			if !ok {
				t.Errorf("%s quotes step %q, which the report lacks", page, id)
				continue
			}
			switch out, _ := q["output"].(string); {
			case counted.MatchString(out):
				q["output"] = goCount(t, dir, id)
			case id == "note": // notes the host worker's answer
				q["output"] = "appended " + itoa(len(goCount(t, dir, "host"))) + " bytes to notes.md"
			}
			if d := cmp.Diff(q, g); d != "" {
				t.Errorf("%s's step %q is stale (-page +planc prints):\n%s", page, id, d)
			}
		}
	}
	check("README.md", excerptSteps(t, consoleBlock(t, docFile(t, "README.md"), "README.md", "```console\n$ "+line+"\n")))
	capsules := docFile(t, "docs/capsules.md")
	if !strings.Contains(capsules, "```console\n$ "+line+"\n```\n") {
		t.Errorf("docs/capsules.md does not show %q", line)
	}
	_, after, _ := strings.Cut(capsules, line)
	check("docs/capsules.md", excerptSteps(t, strings.ReplaceAll(consoleBlock(t, after, "docs/capsules.md", "```json\n"), "}\n{", "},\n{")))
}
