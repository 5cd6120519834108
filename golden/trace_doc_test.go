package golden

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/host/session"
	"github.com/planc/planc/internal/sessionfmt"
	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/ir"
	"github.com/planc/planc/tracefile"
	"github.com/planc/planc/vm"
)

// traceDoc is the trace's documentation, held to the writers here.
const traceDoc = "../docs/trace.md"

// traceEvents are the trace events planc writes (docs/plans.md, "In the
// trace"), in the order docs/trace.md lists them.
var traceEvents = []string{
	sessionfmt.EventSessionStart, sessionfmt.EventSessionEnd, sessionfmt.EventSpawnerEnded,
	sessionfmt.EventPlanStart, sessionfmt.EventPlanStepStart, sessionfmt.EventPlanStep, sessionfmt.EventPlanEnd,
	sessionfmt.EventDelegationStart, sessionfmt.EventDelegation, sessionfmt.EventTaskCanceled, sessionfmt.EventTaskEnd,
	sessionfmt.EventProtectedPathDenied, sessionfmt.EventCallDenied, sessionfmt.EventTraceRepaired,
}

// docTrace is what docs/trace.md says.
type docTrace struct {
	fields   map[string][]string          // event → its fields, from the events table
	types    map[string]map[string]string // event → field → type, from its section
	examples []string                     // every example line
}

// readTraceDoc parses docs/trace.md: the events table, each event's
// section table of fields, and the example lines (indented JSON objects).
func readTraceDoc(t *testing.T) *docTrace {
	t.Helper()
	raw, err := os.ReadFile(traceDoc)
	if err != nil {
		t.Fatal(err)
	}
	d := &docTrace{fields: map[string][]string{}, types: map[string]map[string]string{}}
	row := regexp.MustCompile("^\\| \\[`([a-z_]+)`\\]\\(#[a-z_]+\\) \\| [^|]+ \\| (.*) \\|$")
	fieldRow := regexp.MustCompile("^\\| (`[a-z0-9_]+`(?:, `[a-z0-9_]+`)*) \\| ([a-z ]+) \\| ")
	section := ""
	for _, line := range strings.Split(string(raw), "\n") {
		switch {
		case strings.HasPrefix(line, "### "):
			section = strings.TrimPrefix(line, "### ")
			d.types[section] = map[string]string{}
		case strings.HasPrefix(line, "## "):
			section = ""
		case strings.HasPrefix(line, "    {"):
			d.examples = append(d.examples, strings.TrimPrefix(line, "    "))
		}
		if m := row.FindStringSubmatch(line); m != nil {
			var fs []string
			if m[2] != "—" {
				for _, f := range strings.Split(m[2], ", ") {
					fs = append(fs, strings.Trim(f, "`"))
				}
			}
			d.fields[m[1]] = fs
		}
		if m := fieldRow.FindStringSubmatch(line); m != nil && section != "" {
			for _, f := range strings.Split(m[1], ", ") {
				d.types[section][strings.Trim(f, "`")] = m[2]
			}
		}
	}
	return d
}

// keysOf returns the member names of the JSON object line, in order, with
// their values.
func keysOf(t *testing.T, line string) ([]string, map[string]any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(line))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not a JSON object: %s", line)
	}
	var keys []string
	vals := map[string]any{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		keys = append(keys, tok.(string))
		vals[tok.(string)] = v
	}
	return keys, vals
}

// wantKeys returns the members a line of event ev with values vals must
// have, in order: ts, event, session, plan when the line has it (the
// run's plan number, documented with the common fields), then the event's
// fields, less those documented "or absent" that the line leaves out.
func wantKeys(d *docTrace, ev string, vals map[string]any) []string {
	keys := []string{"ts", "event", "session"}
	if _, ok := vals["plan"]; ok {
		keys = append(keys, "plan")
	}
	for _, f := range d.fields[ev] {
		if _, ok := vals[f]; ok || !strings.HasSuffix(d.types[ev][f], " or absent") {
			keys = append(keys, f)
		}
	}
	return keys
}

// typeOK reports whether v is of the documented type.
func typeOK(v any, typ string) bool {
	typ = strings.TrimSuffix(typ, " or absent")
	switch typ {
	case "true":
		return v == true
	case "string":
		_, ok := v.(string)
		return ok
	case "string or null":
		_, ok := v.(string)
		return ok || v == nil
	case "integer":
		f, ok := v.(float64)
		return ok && f == float64(int64(f))
	case "list of strings":
		l, ok := v.([]any)
		for _, x := range l {
			if _, s := x.(string); !s {
				return false
			}
		}
		return ok
	}
	return false
}

// TestTraceDoc: docs/trace.md documents every event planc writes, each
// with its fields in the order written, a type for each, and at least one
// example line; every example line has ts, event and session first, then
// exactly its event's fields, of the documented types, and tracefile
// reads it without a note.
func TestTraceDoc(t *testing.T) {
	d := readTraceDoc(t)
	var documented []string
	for ev := range d.fields {
		documented = append(documented, ev)
	}
	slices.Sort(documented)
	want := slices.Sorted(slices.Values(traceEvents))
	if !slices.Equal(documented, want) {
		t.Fatalf("events table lists %v, want %v", documented, want)
	}
	seen := map[string]bool{}
	for _, line := range d.examples {
		keys, vals := keysOf(t, line)
		ev, _ := vals["event"].(string)
		seen[ev] = true
		want := wantKeys(d, ev, vals)
		if !slices.Equal(keys, want) {
			t.Errorf("example %s: members %v, want %v", ev, keys, want)
			continue
		}
		if p, ok := vals["plan"]; ok && !typeOK(p, "integer") {
			t.Errorf("example %s: plan is %v, not an integer", ev, p)
		}
		for _, f := range want[3:] {
			if f == "plan" {
				continue
			}
			if typ := d.types[ev][f]; !typeOK(vals[f], typ) {
				t.Errorf("example %s: %s is %v, documented as %q", ev, f, vals[f], typ)
			}
		}
		evs, notes, err := tracefile.Read(strings.NewReader(line + "\n"))
		if err != nil || len(notes) > 0 || len(evs) != 1 {
			t.Errorf("tracefile.Read(%s): %v %v", line, notes, err)
		}
	}
	for _, ev := range traceEvents {
		if !seen[ev] {
			t.Errorf("event %s has no example line", ev)
		}
		if len(d.fields[ev]) != len(d.types[ev]) {
			t.Errorf("event %s: table fields %v, section fields %v", ev, d.fields[ev], d.types[ev])
		}
	}
}

// TestTraceDocWriters: the lines the runtime writes have the members
// docs/trace.md gives, in its order: every event, the VM's through
// vm.Event.AppendFields and session.Trace, the host's own (sessions,
// refusals, delegations, tasks) through their session.Trace methods.
func TestTraceDocWriters(t *testing.T) {
	d := readTraceDoc(t)
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	// A torn line for OpenTrace to move aside: trace_repaired (S33).
	if err := os.WriteFile(path, []byte(`{"ts":"2025-01-0`), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err := session.OpenTrace(path, "S")
	if err != nil {
		t.Fatal(err)
	}
	tr.SessionStart("local/planc", "0.1.0", "", "")
	tr.SetPlan(1) // every line after carries "plan": 1
	tr.Event(vm.Event{Kind: vm.PlanStart, PlanID: "p", PlanFile: "plans/plan-1.json", Steps: 1})
	tr.Event(vm.Event{Kind: vm.PlanStart, PlanID: "p", PlanFile: "plans/plan-1.json", Steps: 1, SHA256: "ab", Redrive: 1})
	tr.Event(vm.Event{Kind: vm.PlanStep, PlanID: "p", StepID: "r", Status: vm.StatusSuccess, Attempt: 2, Reused: true, OutputBytes: 3})
	tr.Event(vm.Event{Kind: vm.PlanStepStart, PlanID: "p", StepID: "a", StepKind: ir.KindTool, Attempt: 1})
	tr.ProtectedPathDenied("p", "a", "/src")
	tr.CallDenied("p", "a", 0, "on-shell")
	tr.Event(vm.Event{Kind: vm.PlanStep, PlanID: "p", StepID: "a", Status: vm.StatusFailed, Attempt: 1, Error: "x"})
	tr.DelegationStart("p", "w", "plan-1-w-1", "local/worker", "0.1.0", 42)
	tr.Delegation("p", "w", "plan-1-w-1", session.DelegationCompleted, "")
	tr.TaskCanceled("plan-1", []string{"plan-1-w-1"})
	tr.TaskEnd("plan-1", session.TaskEndCanceled)
	tr.Event(vm.Event{Kind: vm.PlanEnd, PlanID: "p", Outcome: vm.Failed, FailedStep: "a", Failed: 1})
	tr.Event(vm.Event{Kind: vm.PlanEnd, PlanID: "p", Outcome: vm.Completed, Succeeded: 1, Redrive: 1})
	tr.ParentEnded()
	tr.SessionEnd(session.EndFailed)
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	written := map[string]bool{}
	for _, line := range strings.Split(string(bytes.TrimSpace(raw)), "\n") {
		keys, vals := keysOf(t, line)
		ev := vals["event"].(string)
		written[ev] = true
		if _, numbered := vals["plan"]; numbered != (ev != "trace_repaired" && ev != "session_start") || numbered && vals["plan"] != 1.0 {
			t.Errorf("%s as written: plan %v; want 1 on every line after SetPlan", ev, vals["plan"])
		}
		want := wantKeys(d, ev, vals)
		if diff := cmp.Diff(want, keys); diff != "" {
			t.Errorf("%s as written (-docs/trace.md +session.Trace):\n%s", ev, diff)
		}
	}
	for _, ev := range traceEvents {
		if !written[ev] {
			t.Errorf("the test wrote no %s line", ev)
		}
	}
}

// TestTraceDocWholeTrace: the whole trace docs/trace.md shows for
// `planc run examples/hello.json` is the one planc writes, line for line,
// its times, session id and durations aside.
func TestTraceDocWholeTrace(t *testing.T) {
	b, err := os.ReadFile(traceDoc)
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(b), "`planc run examples/hello.json` (four tool steps, run one at a time):\n\n")
	if !ok {
		t.Fatal("docs/trace.md has no whole trace of examples/hello.json")
	}
	var shown []string
	for _, l := range strings.Split(after, "\n") {
		if !strings.HasPrefix(l, "    {") {
			break
		}
		shown = append(shown, strings.TrimPrefix(l, "    "))
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	testkit.CopyTree(t, filepath.Join(root, "examples"), filepath.Join(dir, "examples"))
	cmd := exec.Command(testkit.PlancBinary(t), "run", "--quiet", "--session", "sess", "examples/hello.json")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("planc run: %v\n%s", err, out)
	}
	written, err := os.ReadFile(filepath.Join(dir, "sess", "trace.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	volatile := regexp.MustCompile(`"ts":"[^"]*"|"session":"[^"]*"|"duration_ms":\d+`)
	norm := func(l string) string {
		return volatile.ReplaceAllStringFunc(l, func(m string) string { k, _, _ := strings.Cut(m, ":"); return k + ":…" })
	}
	var got, want []string
	for _, l := range strings.Split(strings.TrimSpace(string(written)), "\n") {
		got = append(got, norm(l))
	}
	for _, l := range shown {
		want = append(want, norm(l))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the trace of planc run examples/hello.json (-docs/trace.md +planc):\n%s", diff)
	}
}
