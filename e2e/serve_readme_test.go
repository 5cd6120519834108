package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/vm"
)

// readmeServe returns the README's `planc serve --mcp` exchange: the
// console block that starts with that command, split into the lines typed
// in (those with a "method") and the lines planc answers.
func readmeServe(t *testing.T) (in, out []string) {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	const start = "```console\n$ planc serve --mcp\n"
	i := strings.Index(string(b), start)
	if i < 0 {
		t.Fatalf("README.md has no console block starting %q", start)
	}
	block, _, ok := strings.Cut(string(b[i+len(start):]), "```")
	if !ok {
		t.Fatal("README.md's serve block does not end")
	}
	for line := range strings.SplitSeq(strings.TrimSpace(block), "\n") {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("README.md's serve block: %q is not JSON: %v", line, err)
		}
		if _, ok := m["method"]; ok {
			in = append(in, line)
		} else {
			out = append(out, line)
		}
	}
	if len(in) == 0 || len(out) == 0 {
		t.Fatalf("README.md's serve block: %d lines in, %d out", len(in), len(out))
	}
	return in, out
}

// readmeDir is the directory the README's exchange ran in.
const readmeDir = "/tmp/demo"

var (
	sessionRE      = regexp.MustCompile(`\d{8}T\d{6}Z-[0-9a-f]{6}`)
	instructionsRE = regexp.MustCompile(`"instructions":"((?:[^"\\]|\\.)*)"`)
)

// readmeNormal is an answer of planc serve in dir as the README shows it:
// dir is /tmp/demo, session ids are SESSION, and the instructions are cut
// where the README cuts them ("…") when they start as the README's do.
func readmeNormal(answer, dir, readme string) string {
	answer = sessionRE.ReplaceAllString(strings.ReplaceAll(answer, dir, readmeDir), "SESSION")
	if m := instructionsRE.FindStringSubmatch(readme); m != nil {
		if cut, ok := strings.CutSuffix(m[1], "…"); ok {
			answer = instructionsRE.ReplaceAllStringFunc(answer, func(s string) string {
				if strings.HasPrefix(instructionsRE.FindStringSubmatch(s)[1], cut) {
					return m[0]
				}
				return s
			})
		}
	}
	return answer
}

// readmeServeDir makes the directory the README's exchange runs in.
func readmeServeDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	testkit.WriteFiles(t, dir, "greeting.txt", "hello from planc\n")
	return dir
}

// startReadmeServe starts planc serve --mcp in dir with pipes on its
// standard input and output.
func startReadmeServe(t *testing.T, dir string) (*exec.Cmd, io.WriteCloser, *bufio.Scanner, *lockedBuffer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, plancBin(t), "serve", "--mcp")
	cmd.Dir = dir
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	return cmd, stdin, sc, stderr
}

// TestReadmeServeExample: the README's three lines typed (or pasted) into
// `planc serve --mcp`, standard input left open as a terminal leaves it,
// get the README's answers (session ids and the directory aside); then
// the end of the input (Ctrl-D) ends planc with status 0.
func TestReadmeServeExample(t *testing.T) {
	t.Parallel()
	in, out := readmeServe(t)
	dir := readmeServeDir(t)
	cmd, stdin, sc, stderr := startReadmeServe(t, dir)
	if _, err := io.WriteString(stdin, strings.Join(in, "\n")+"\n"); err != nil {
		t.Fatal(err)
	}
	for i, want := range out {
		if !sc.Scan() {
			t.Fatalf("planc serve wrote %d answers of %d: %v; stderr:\n%s", i, len(out), sc.Err(), stderr)
		}
		if got := readmeNormal(sc.Text(), dir, want); got != readmeNormal(want, readmeDir, want) {
			t.Errorf("answer %d:\n%s\nthe README shows\n%s", i+1, got, want)
		}
	}
	stdin.Close()
	if sc.Scan() {
		t.Errorf("after the answers planc wrote %s", sc.Text())
	}
	if err := cmd.Wait(); err != nil || stderr.String() != "" {
		t.Errorf("planc serve: %v; stderr:\n%s", err, stderr)
	}
}

// TestReadmeServePiped: the README's lines piped in, so that standard
// input ends right after them. Every call is still answered: the
// handshake as the README shows it, the tools/call with the plan's report,
// completed if the plan finished before planc saw the end of its input,
// else cancelled (its steps skipped or done); planc exits 0.
func TestReadmeServePiped(t *testing.T) {
	t.Parallel()
	in, out := readmeServe(t)
	dir := readmeServeDir(t)
	cmd, stdin, sc, stderr := startReadmeServe(t, dir)
	if _, err := io.WriteString(stdin, strings.Join(in, "\n")+"\n"); err != nil {
		t.Fatal(err)
	}
	stdin.Close()
	var got []string
	for sc.Scan() {
		got = append(got, sc.Text())
	}
	if err := cmd.Wait(); err != nil || stderr.String() != "" {
		t.Errorf("planc serve: %v; stderr:\n%s", err, stderr)
	}
	if len(got) != len(out) {
		t.Fatalf("planc answered %d lines, the README %d:\n%s", len(got), len(out), strings.Join(got, "\n"))
	}
	for i := range out {
		if readmeNormal(got[i], dir, out[i]) == readmeNormal(out[i], readmeDir, out[i]) {
			continue
		}
		var a struct {
			ID     int `json:"id"`
			Result struct {
				IsError           bool `json:"isError"`
				Content           []struct{ Text string }
				StructuredContent vm.Report `json:"structuredContent"`
			} `json:"result"`
		}
		err := json.Unmarshal([]byte(got[i]), &a)
		r := a.Result
		if err != nil || a.ID != 2 || !r.IsError || !r.StructuredContent.Canceled || r.StructuredContent.PlanID != "greet" ||
			len(r.Content) == 0 || !strings.HasPrefix(r.Content[0].Text, "Plan 'greet' was cancelled: 2 steps") {
			t.Errorf("answer %d is neither the README's nor a cancelled report:\n%s", i+1, got[i])
		}
	}
}
