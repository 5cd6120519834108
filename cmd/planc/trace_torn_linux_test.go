package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/tracefile"
)

// bigIDPlan is a plan whose one step has an id of n bytes: its
// plan_step_start and plan_step lines are over n bytes long.
func bigIDPlan(n int) string {
	return fmt.Sprintf(`{"id": "big", "steps": [{"id": %q, "tool": "notes", "input": {"body": "x"}}]}`, strings.Repeat("s", n))
}

// TestTraceTornThenResumed: a trace cut inside a line of a megabyte (as a
// writer killed in the middle of its write leaves it) and then taken up
// again by `planc run --session`: the torn bytes stay a line of their
// own, every other line is whole JSON, the new run's session_start is
// whole, and a reader skips the torn line with one note.
func TestTraceTornThenResumed(t *testing.T) {
	dir := t.TempDir()
	sess := filepath.Join(dir, "sess")
	testkit.WriteFiles(t, dir, "big.json", bigIDPlan(1<<20), "small.json", `{"id": "small", "steps": [{"id": "n", "tool": "notes", "input": {"body": "y"}}]}`)
	if r := planc(t, dir, "--quiet", "--session", sess, "big.json"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	path := filepath.Join(sess, "trace.jsonl")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	start := bytes.Index(b, []byte(`"event":"plan_step_start"`))
	start = bytes.LastIndexByte(b[:start], '\n') + 1
	cut := start + 512<<10
	if err := os.Truncate(path, int64(cut)); err != nil {
		t.Fatal(err)
	}
	torn := string(b[start:cut])

	if r := planc(t, dir, "--quiet", "--session", sess, "small.json"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	after, _ := os.ReadFile(path)
	ls := strings.Split(strings.TrimSuffix(string(after), "\n"), "\n")
	tornAt := -1
	for i, l := range ls {
		if !json.Valid([]byte(l)) {
			if tornAt >= 0 || l != torn {
				t.Fatalf("line %d is not JSON: %.100q…", i+1, l)
			}
			tornAt = i
		}
	}
	if tornAt < 0 || tornAt+1 >= len(ls) {
		t.Fatalf("the torn line is at %d of %d lines", tornAt+1, len(ls))
	}
	var next map[string]any
	json.Unmarshal([]byte(ls[tornAt+1]), &next)
	if next["event"] != "session_start" {
		t.Errorf("the line after the torn one: %.100q; want the new session_start", ls[tornAt+1])
	}
	events, notes, err := tracefile.Read(bytes.NewReader(after))
	if err != nil || len(notes) != 1 || !notes[0].Skipped || notes[0].Line != tornAt+1 {
		t.Errorf("tracefile.Read: %v, notes %+v; want one note on line %d", err, notes, tornAt+1)
	}
	if n := len(events); n != len(ls)-1 {
		t.Errorf("%d events of %d lines", n, len(ls))
	}
}

// TestTraceLineOneWrite: under strace, each trace line is one write(2)
// to trace.jsonl, the two lines of over a megabyte included.
func TestTraceLineOneWrite(t *testing.T) {
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("no strace here")
	}
	dir := t.TempDir()
	sess := filepath.Join(dir, "sess")
	testkit.WriteFiles(t, dir, "big.json", bigIDPlan(1<<20))
	log := filepath.Join(dir, "strace.log")
	// The session directory is made by planc: strace's -P names the trace
	// file before it exists.
	path := filepath.Join(sess, "trace.jsonl")
	cmd := exec.Command(strace, "-f", "-qq", "-e", "trace=write", "-P", path, "-o", log, plancBin(t), "run", "--quiet", "--session", sess, "big.json")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("planc under strace: %v\n%s", err, out)
	}
	b, _ := os.ReadFile(log)
	// -f puts each thread's pid first; a call another thread interrupts
	// is split into "<unfinished ...>" and "<... write resumed>".
	whole := regexp.MustCompile(`write\(\d+, .*, (\d+)\) += (-?\d+)`)
	unfinished := regexp.MustCompile(`^(\d+) +write\(\d+, .*, (\d+) <unfinished \.\.\.>`)
	resumed := regexp.MustCompile(`^(\d+) +<\.\.\. write resumed>.*\) += (-?\d+)`)
	pending := map[string]string{}
	var calls [][2]int // asked, written
	for line := range strings.SplitSeq(string(b), "\n") {
		switch {
		case unfinished.MatchString(line):
			m := unfinished.FindStringSubmatch(line)
			pending[m[1]] = m[2]
		case resumed.MatchString(line):
			m := resumed.FindStringSubmatch(line)
			asked, _ := strconv.Atoi(pending[m[1]])
			got, _ := strconv.Atoi(m[2])
			calls = append(calls, [2]int{asked, got})
		case whole.MatchString(line):
			m := whole.FindStringSubmatch(line)
			asked, _ := strconv.Atoi(m[1])
			got, _ := strconv.Atoi(m[2])
			calls = append(calls, [2]int{asked, got})
		}
	}
	lines := testkit.TraceLines(t, path)
	big := 0
	for _, c := range calls {
		if c[0] != c[1] {
			t.Errorf("a write of %d bytes wrote %d", c[0], c[1])
		}
		if c[0] > 1<<20 {
			big++
		}
	}
	if len(calls) != len(lines) || big != 2 {
		t.Errorf("%d writes (%d over 1 MiB) for %d lines; want one each, two over 1 MiB:\n%s", len(calls), big, len(lines), b)
	}
}
