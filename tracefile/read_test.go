package tracefile_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/planc/planc/tracefile"
	"github.com/planc/planc/tracefile/internal/tracetest"
	"github.com/planc/planc/tracefile/traceview"
)

const sid = tracetest.SessionID

func notes(ns []tracefile.Note) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.String()
	}
	return out
}

func TestReadFields(t *testing.T) {
	src := tracetest.Line(tracetest.TS(0), "session_start", sid, "capsule", "local/planner", "version", "0.1.0", "spawned_by", nil, "delegation_id", nil) +
		tracetest.Line(tracetest.TS(1), "plan_step", sid, "plan_id", "p", "step_id", "a", "status", "failed", "attempt", 2, "duration_ms", 1500, "error", "exit status 1") +
		tracetest.Line(tracetest.TS(2), "task_canceled", sid, "task_id", "t1", "delegation_ids", []string{"d1", "d2"}) +
		tracetest.Line(tracetest.TS(3), "call_denied", sid, "plan_id", "p", "step_id", "b", "hook", 3, "on", "on-shell")
	events, ns, err := tracefile.Read(strings.NewReader(src))
	if err != nil || len(ns) != 0 {
		t.Fatalf("err %v, notes %v", err, ns)
	}
	want := []tracefile.Event{
		{Line: 1, RawTS: tracetest.TS(0), Event: "session_start", Session: sid, Capsule: "local/planner", Version: "0.1.0"},
		{Line: 2, RawTS: tracetest.TS(1), Event: "plan_step", Session: sid, PlanID: "p", StepID: "a", Status: "failed", Attempt: 2, DurationMS: 1500, Error: "exit status 1"},
		{Line: 3, RawTS: tracetest.TS(2), Event: "task_canceled", Session: sid, TaskID: "t1", DelegationIDs: []string{"d1", "d2"}},
		{Line: 4, RawTS: tracetest.TS(3), Event: "call_denied", Session: sid, PlanID: "p", StepID: "b", Hook: 3, On: "on-shell"},
	}
	for i := range events {
		if events[i].TS.IsZero() {
			t.Errorf("line %d: ts not parsed", i+1)
		}
		events[i].TS = time.Time{}
	}
	if d := cmp.Diff(want, events); d != "" {
		t.Errorf("events (-want +got):\n%s", d)
	}
}

// TestReadDamaged: nothing a damaged trace holds stops the reading; each
// problem is a note on its line.
func TestReadDamaged(t *testing.T) {
	good := tracetest.Line(tracetest.TS(0), "session_start", sid, "capsule", "c/c", "version", "0.1.0", "spawned_by", nil, "delegation_id", nil)
	tests := []struct {
		name   string
		src    string
		events []string // the event names read
		notes  []string
	}{
		{"empty", "", nil, nil},
		{"blank lines", "\n  \n" + good + "\n", []string{"session_start"}, nil},
		{"cut last line", good + `{"ts":"2025-01-02T15:04:06Z","event":"plan_st`, []string{"session_start"},
			[]string{"line 2: the last line is cut short (the trace was still being written, or its writer died); left out"}},
		{"last line whole but unterminated", good + strings.TrimSuffix(good, "\n"), []string{"session_start", "session_start"}, nil},
		{"not JSON", "garbage\n" + good, []string{"session_start"}, []string{"line 1: not a JSON object; left out"}},
		{"a list", "[1, 2]\n" + good, []string{"session_start"}, []string{"line 1: not a JSON object; left out"}},
		{"no event", `{"ts": "x", "session": "s"}` + "\n", nil, []string{"line 1: no event; left out"}},
		{"event not a string", `{"event": 7}` + "\n", nil, []string{"line 1: no event; left out"}},
		{"unknown event", tracetest.Line(tracetest.TS(0), "telemetry", sid, "x", 1), []string{"telemetry"}, []string{`line 1: unknown event "telemetry"; not shown`}},
		{"wrong type", tracetest.Line(tracetest.TS(0), "plan_step", sid, "plan_id", "p", "attempt", "two"), []string{"plan_step"},
			[]string{`line 1: field "attempt" has the wrong type (string); read as empty`}},
		{"torn in the middle", good + `{"ts":"2025-01-02T15:04:06Z","event":"plan_st` + "\n" + good, []string{"session_start", "session_start"},
			[]string{"line 2: torn: 45 bytes that do not end as JSON (a write cut short, e.g. by a crash); skipped"}},
		{"torn with a line glued on", good + `{"ts":"2025-01-02T15:04:06Z","event":"plan_st` + good, []string{"session_start", "session_start"},
			[]string{"line 2: torn: its first 45 bytes are a line whose write was cut short (its writer died mid-write); they are skipped and the line written after them is read"}},
		{"torn inside a string", good + `{"ts":"x","event":"plan_step","step_id":"aaa` + good, []string{"session_start", "session_start"},
			[]string{"line 2: torn: its first 44 bytes are a line whose write was cut short (its writer died mid-write); they are skipped and the line written after them is read"}},
		{"control characters", tracetest.Line(tracetest.TS(0), "bad\x1b[2Jevent", sid), []string{"bad\x1b[2Jevent"},
			[]string{`line 1: unknown event "bad\x1b[2Jevent"; not shown`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			events, ns, err := tracefile.Read(strings.NewReader(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, e := range events {
				names = append(names, e.Event)
			}
			if d := cmp.Diff(tt.events, names); d != "" {
				t.Errorf("events (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.notes, notes(ns), cmpopts.EquateEmpty()); d != "" {
				t.Errorf("notes (-want +got):\n%s", d)
			}
		})
	}
}

// TestReadTornBigLine is issue 13's case: a writer killed while writing a
// line over 64 KiB (a 1 MiB step id) left its first bytes, and the next
// run's session_start was glued on: the torn bytes are skipped with one
// note (marked Skipped), the glued line and every other line are read,
// whatever the sizes.
func TestReadTornBigLine(t *testing.T) {
	start := tracetest.Line(tracetest.TS(0), "session_start", sid, "capsule", "c/c", "version", "0.1.0", "spawned_by", nil, "delegation_id", nil)
	big := tracetest.Line(tracetest.TS(1), "plan_step_start", sid, "plan_id", "p", "step_id", strings.Repeat("x", 1<<20), "kind", "shell", "attempt", 1)
	for _, cut := range []int{1, 70 << 10, len(big) - 3, len(big) - 1} {
		src := start + big[:cut] + start + big
		events, ns, err := tracefile.Read(strings.NewReader(src))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range events {
			names = append(names, e.Event)
		}
		if d := cmp.Diff([]string{"session_start", "session_start", "plan_step_start"}, names); d != "" {
			t.Errorf("cut at %d: events (-want +got):\n%s", cut, d)
		}
		if len(ns) != 1 || !ns[0].Skipped || ns[0].Line != 2 || !strings.Contains(ns[0].Text, fmt.Sprintf("first %d bytes", cut)) {
			t.Errorf("cut at %d: notes %v", cut, ns)
		}
		if len(events) == 3 && len(events[2].StepID) != 1<<20 {
			t.Errorf("cut at %d: the whole big line lost its step id", cut)
		}
	}
	// Torn as the last line: left out, one note.
	events, ns, err := tracefile.Read(strings.NewReader(start + big[:70<<10]))
	if err != nil || len(events) != 1 || len(ns) != 1 || !ns[0].Skipped {
		t.Errorf("torn last line: %d events, notes %v, err %v", len(events), ns, err)
	}
}

func TestReadError(t *testing.T) {
	boom := errors.New("boom")
	_, _, err := tracefile.Read(iotest.ErrReader(boom))
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	// A one-byte reader splits every line across reads.
	src := tracetest.Line(tracetest.TS(0), "session_end", sid, "exit_status", "ok")
	events, ns, err := tracefile.Read(iotest.OneByteReader(strings.NewReader(src + src)))
	if err != nil || len(events) != 2 || len(ns) != 0 {
		t.Fatalf("one-byte reads: %d events, notes %v, err %v", len(events), ns, err)
	}
}

// TestNoPanic feeds mangled traces (bytes cut, dropped, swapped, lines
// shuffled and duplicated) through Read, FromEvents and both views, and
// through Open with a delegation directory: nothing may panic.
func TestNoPanic(t *testing.T) {
	base := showTrace()
	rng := rand.New(rand.NewPCG(1, 2))
	dir := t.TempDir()
	for round := range 400 {
		b := []byte(base)
		switch round % 4 {
		case 0:
			b = b[:rng.IntN(len(b))]
		case 1:
			for range 1 + rng.IntN(8) {
				b[rng.IntN(len(b))] = byte(rng.IntN(256))
			}
		case 2:
			lines := strings.SplitAfter(base, "\n")
			rng.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
			b = []byte(strings.Join(append(lines, lines[:rng.IntN(len(lines))]...), ""))
		case 3:
			i := rng.IntN(len(b))
			b = append(b[:i:i], b[min(len(b), i+1+rng.IntN(40)):]...)
		}
		tracetest.Write(t, dir, map[string]string{"trace.jsonl": string(b), "delegations/d-1/trace.jsonl": string(b)})
		s, err := tracefile.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		if err := traceview.WriteShow(&out, s); err != nil {
			t.Fatal(err)
		}
		if err := traceview.WriteSteps(&out, s); err != nil {
			t.Fatal(err)
		}
	}
}

// showTrace is a parent session's trace with a plan, a retry, a skipped
// step and a delegation.
func showTrace() string {
	return tracetest.Line(tracetest.TS(0), "session_start", sid, "capsule", "local/planner", "version", "0.1.0", "spawned_by", nil, "delegation_id", nil) +
		tracetest.Line(tracetest.TS(0.1), "plan_start", sid, "plan_id", "p", "plan_file", "plans/plan-1.json", "steps", 3) +
		tracetest.Line(tracetest.TS(0.2), "plan_step_start", sid, "plan_id", "p", "step_id", "a", "kind", "shell", "attempt", 1) +
		tracetest.Line(tracetest.TS(0.3), "plan_step", sid, "plan_id", "p", "step_id", "a", "status", "failed", "attempt", 1, "duration_ms", 100, "error", "exit status 1") +
		tracetest.Line(tracetest.TS(0.4), "plan_step_start", sid, "plan_id", "p", "step_id", "a", "kind", "shell", "attempt", 2) +
		tracetest.Line(tracetest.TS(0.5), "plan_step", sid, "plan_id", "p", "step_id", "a", "status", "success", "attempt", 2, "duration_ms", 100, "error", nil) +
		tracetest.Line(tracetest.TS(0.6), "plan_step", sid, "plan_id", "p", "step_id", "b", "status", "skipped", "attempt", 0, "duration_ms", 0, "error", nil) +
		tracetest.Line(tracetest.TS(0.7), "plan_step_start", sid, "plan_id", "p", "step_id", "c", "kind", "capsule", "attempt", 1) +
		tracetest.Line(tracetest.TS(0.8), "delegation_start", sid, "plan_id", "p", "step_id", "c", "delegation_id", "d-1", "capsule", "local/worker", "version", "0.1.0", "pid", 42) +
		tracetest.Line(tracetest.TS(0.9), "delegation", sid, "plan_id", "p", "step_id", "c", "delegation_id", "d-1", "outcome", "completed", "reason", nil) +
		tracetest.Line(tracetest.TS(1.0), "plan_step", sid, "plan_id", "p", "step_id", "c", "status", "success", "attempt", 1, "duration_ms", 200, "error", nil) +
		tracetest.Line(tracetest.TS(1.1), "plan_end", sid, "plan_id", "p", "outcome", "completed", "failed_step", nil, "succeeded", 2, "failed", 0, "skipped", 1) +
		tracetest.Line(tracetest.TS(1.2), "session_end", sid, "exit_status", "ok")
}

func TestLatest(t *testing.T) {
	root := t.TempDir()
	tracetest.Write(t, root, map[string]string{
		"20250101T000000Z-aaaaaa/trace.jsonl":  "",
		"20250102T000000Z-bbbbbb/session.json": "{}",
		"20250103T000000Z-cccccc/other":        "", // not a session directory
		"zz-file":                              "",
	})
	got, err := tracefile.Latest(root)
	if err != nil || got != filepath.Join(root, "20250102T000000Z-bbbbbb") {
		t.Errorf("Latest = %q, %v", got, err)
	}
	if _, err := tracefile.Latest(filepath.Join(root, "none")); err == nil {
		t.Error("Latest of a missing directory: no error")
	}
	empty := t.TempDir()
	if err := os.Mkdir(filepath.Join(empty, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := tracefile.Latest(empty); err == nil {
		t.Error("Latest without sessions: no error")
	}
}

// TestLatestSameSecond: of sessions made within the same second, whose
// names differ only in their random hex, the newest is the one its
// session.json says started last, not the last name (S25: --resume's
// default session is the newest).
func TestLatestSameSecond(t *testing.T) {
	root := t.TempDir()
	tracetest.Write(t, root, map[string]string{
		"20250101T235959Z-ffffff/session.json": `{"started": "2025-01-01T23:59:59.9Z"}`,
		"20250102T000000Z-aaaaaa/session.json": `{"started": "2025-01-02T00:00:00.7Z"}`,
		"20250102T000000Z-cccccc/session.json": `{"started": "2025-01-02T00:00:00.2Z"}`,
		"20250102T000000Z-dddddd/session.json": `{}`,
		"20250102T000000Z-eeeeee/other":        "", // not a session directory
	})
	got, err := tracefile.Latest(root)
	if want := filepath.Join(root, "20250102T000000Z-aaaaaa"); err != nil || got != want {
		t.Errorf("Latest = %q, %v; want %q", got, err, want)
	}
}

// FuzzRead: no trace text makes reading, grouping or either view panic,
// and every view ends each line with a newline.
func FuzzRead(f *testing.F) {
	f.Add(showTrace())
	f.Add(tracetest.Line(tracetest.TS(0), "plan_step", sid, "plan_id", "p", "step_id", "a", "status", "failed", "attempt", 0, "duration_ms", -5, "error", "x\ny"))
	f.Add(`{"event": "plan_end"}` + "\n" + `{"event": "delegation", "delegation_id": ""}`)
	f.Fuzz(func(t *testing.T, src string) {
		events, _, err := tracefile.Read(strings.NewReader(src))
		if err != nil {
			t.Fatal(err)
		}
		s := tracefile.FromEvents(events)
		for _, w := range []func(*strings.Builder) error{
			func(b *strings.Builder) error { return traceview.WriteShow(b, s) },
			func(b *strings.Builder) error { return traceview.WriteSteps(b, s) },
		} {
			var b strings.Builder
			if err := w(&b); err != nil {
				t.Fatal(err)
			}
			if out := b.String(); !strings.HasSuffix(out, "\n") {
				t.Fatalf("output does not end in a newline: %q", out)
			}
		}
	})
}
