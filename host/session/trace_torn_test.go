package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/planc/planc/internal/sessionfmt"
	"github.com/planc/planc/ir"
	"github.com/planc/planc/vm"
)

// lines splits the file at path into its lines, the last without its
// newline when there is none.
func lines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.SplitAfter(string(b), "\n")
}

// OpenTrace moves a torn last line aside to trace.torn-<offset> and
// records it with trace_repaired before anything else (S33), and leaves a
// whole or empty file as it is.
func TestTraceRepairsTornLine(t *testing.T) {
	for _, c := range []struct {
		name, before, kept, torn string
		offset                   int
	}{
		{"torn", "{\"ts\":\"x\"}\n{\"ts\":\"2025-01-0", "{\"ts\":\"x\"}\n", "{\"ts\":\"2025-01-0", 11},
		{"torn-only", "{\"ts", "", "{\"ts", 0},
		{"whole", "{\"ts\":\"x\"}\n", "{\"ts\":\"x\"}\n", "", 0},
		{"empty", "", "", "", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, sessionfmt.TraceFile)
			if err := os.WriteFile(path, []byte(c.before), 0o644); err != nil {
				t.Fatal(err)
			}
			tr, err := OpenTrace(path, "s-2")
			if err != nil {
				t.Fatal(err)
			}
			tr.SessionStart("local/planc", "0.1.0", "", "")
			if err := tr.Close(); err != nil {
				t.Fatal(err)
			}
			ls := lines(t, path)
			ls = ls[:len(ls)-1] // SplitAfter leaves "" after the final newline
			var events []string
			for _, l := range ls {
				var m map[string]any
				if err := json.Unmarshal([]byte(l), &m); err != nil {
					t.Fatalf("line %q is not JSON: %v", l, err)
				}
				ev, _ := m["event"].(string)
				events = append(events, ev)
			}
			want := []string{"session_start"}
			side, _ := filepath.Glob(filepath.Join(dir, "trace.torn-*"))
			if c.torn != "" {
				want = []string{"trace_repaired", "session_start"}
				repaired := fmt.Sprintf(`,"offset":%d,"length":%d,"file":"trace.torn-%d"}`, c.offset, len(c.torn), c.offset)
				if !strings.HasSuffix(ls[len(ls)-2], repaired+"\n") {
					t.Errorf("trace_repaired = %q, want it to end %q", ls[len(ls)-2], repaired)
				}
				if b, err := os.ReadFile(filepath.Join(dir, TornFile(int64(c.offset)))); err != nil || string(b) != c.torn || len(side) != 1 {
					t.Errorf("torn bytes kept: %q (%v) in %v, want %q", b, err, side, c.torn)
				}
			} else if len(side) != 0 {
				t.Errorf("a whole trace was repaired: %v", side)
			}
			n := len(ls) - len(want)
			if got := events[n:]; !slices.Equal(got, want) {
				t.Errorf("new lines %v, want %v", got, want)
			}
			if got := strings.Join(ls[:n], ""); got != c.kept {
				t.Errorf("before the new lines: %q, want %q", got, c.kept)
			}
		})
	}
}

// A line of a megabyte is handed to the file in one write, and a short
// write is followed by the rest of the line.
func TestTraceWrites(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	for _, c := range []struct {
		name  string
		most  int // bytes the file takes per write; 0 for all
		calls int // writes of the big line
	}{
		{"one-write", 0, 1},
		{"short-writes", 300 << 10, 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), sessionfmt.TraceFile)
			tr, err := OpenTrace(path, "s-3")
			if err != nil {
				t.Fatal(err)
			}
			var sizes []int
			write := tr.sys
			tr.sys = func(b []byte) (int, error) {
				sizes = append(sizes, len(b))
				if c.most > 0 && len(b) > c.most {
					b = b[:c.most]
				}
				return write(b)
			}
			tr.Event(vm.Event{Kind: vm.PlanStepStart, PlanID: "p", StepID: big, StepKind: ir.KindShell, Attempt: 1})
			if len(sizes) != c.calls || sizes[0] < len(big) {
				t.Errorf("writes of %v bytes; want %d, the first of the whole line", sizes, c.calls)
			}
			tr.SessionEnd(EndOK)
			if err := tr.Close(); err != nil {
				t.Fatal(err)
			}
			ls := lines(t, path)
			if len(ls) != 3 || ls[2] != "" {
				t.Fatalf("%d lines", len(ls)-1)
			}
			for _, l := range ls[:2] {
				if !json.Valid([]byte(l)) {
					t.Errorf("line %.80q… is not JSON", l)
				}
			}
		})
	}
}

// A write that fails after part of a line leaves that part torn: the next
// line starts on a line of its own.
func TestTraceFailedWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), sessionfmt.TraceFile)
	tr, err := OpenTrace(path, "s-4")
	if err != nil {
		t.Fatal(err)
	}
	write := tr.sys
	fail := true
	tr.sys = func(b []byte) (int, error) {
		if fail {
			fail = false
			n, _ := write(b[:len(b)/2])
			return n, errors.New("no space left on device")
		}
		return write(b)
	}
	tr.SessionStart("local/planc", "0.1.0", "", "")
	tr.SessionEnd(EndOK)
	if err := tr.Close(); err == nil || !strings.Contains(err.Error(), "no space left") {
		t.Errorf("Close: %v; want the write's error", err)
	}
	ls := lines(t, path)
	if len(ls) != 3 || json.Valid([]byte(ls[0])) || !json.Valid([]byte(ls[1])) || !strings.Contains(ls[1], `"session_end"`) {
		t.Errorf("lines %q; want the torn half, then session_end whole", ls)
	}
}

// A last line without its newline while another Trace has the file open
// is a line that run is writing, not a torn one: OpenTrace leaves it
// alone (cutting it would cut the other run's line). Once no Trace has the
// file open, the same bytes are a torn line and are moved aside (S33).
func TestTraceRepairWaitsForLiveWriters(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, sessionfmt.TraceFile)
	live, err := OpenTrace(path, "s")
	if err != nil {
		t.Fatal(err)
	}
	partial := `{"ts":"2025-01-01T00:00:00.000000000Z","event":"plan_st`
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(partial); err != nil {
		t.Fatal(err)
	}
	f.Close()
	second, err := OpenTrace(path, "s")
	if err != nil {
		t.Fatal(err)
	}
	if got := lines(t, path); len(got) != 1 || got[0] != partial {
		t.Errorf("with a live writer the trace became %q; want the line in writing left alone", got)
	}
	if torn, _ := filepath.Glob(filepath.Join(dir, "trace.torn-*")); len(torn) != 0 {
		t.Errorf("moved aside with a live writer: %v", torn)
	}
	second.Close()
	live.Close()
	after, err := OpenTrace(path, "s")
	if err != nil {
		t.Fatal(err)
	}
	defer after.Close()
	if b, err := os.ReadFile(filepath.Join(dir, TornFile(0))); err != nil || string(b) != partial {
		t.Errorf("with no writer left the torn line was not moved aside: %q %v", b, err)
	}
}
