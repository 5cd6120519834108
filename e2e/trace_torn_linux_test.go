package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
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
// again by `planc run --session`: the torn bytes are moved aside to
// trace.torn-<offset> and a trace_repaired line says so, before the new
// run's session_start (S33); every line of the trace is JSON, and a reader
// has nothing to skip.
func TestTraceTornThenResumed(t *testing.T) {
	t.Parallel()
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
	if !bytes.HasPrefix(after, b[:start]) {
		t.Errorf("the lines before the torn one changed")
	}
	ls := strings.Split(strings.TrimSuffix(string(after), "\n"), "\n")
	var events []map[string]any
	for i, l := range ls {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %d is not JSON: %v: %.100q…", i+1, err, l)
		}
		events = append(events, m)
	}
	name := "trace.torn-" + strconv.Itoa(start)
	i := slices.IndexFunc(events, func(m map[string]any) bool { return m["event"] == "trace_repaired" })
	if i < 0 || i+1 >= len(events) || events[i+1]["event"] != "session_start" {
		t.Fatalf("no trace_repaired line before the new session_start: %v", testkit.Events(events))
	}
	if r := events[i]; r["offset"] != float64(start) || r["length"] != float64(len(torn)) || r["file"] != name {
		t.Errorf("trace_repaired: %v; want offset %d, length %d, file %s", r, start, len(torn), name)
	}
	if kept, err := os.ReadFile(filepath.Join(sess, name)); err != nil || string(kept) != torn {
		t.Errorf("%s holds %d bytes (%v); want the %d torn bytes", name, len(kept), err, len(torn))
	}
	read, notes, err := tracefile.Read(bytes.NewReader(after))
	if err != nil || len(notes) != 0 || len(read) != len(ls) {
		t.Errorf("tracefile.Read: %v, %d events of %d lines, notes %+v", err, len(read), len(ls), notes)
	}
}

// TestTraceLineOneWrite: under strace, each trace line is one write(2)
// to trace.jsonl, the two lines of over a megabyte included.
func TestTraceLineOneWrite(t *testing.T) {
	t.Parallel()
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
