package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/host/session"
	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/tracefile/traceview"
)

const wantList = `SESSION                  PLAN  ID      OUTCOME     REDRIVES  STEPS  FAILED STEP
20250103T100000Z-c0ffee  1     build   completed   1         4
20250103T100000Z-c0ffee  2     deploy  unfinished  0         1
20250102T000000Z-ffffff  1     fail    failed      0         2      two words
20250101T000000Z-eeeeee  -     -       -           -         -
20241231T235959Z-0a0a0a  1     hello   completed   0         1
`

const wantListJSON = `{"session":"20250103T100000Z-c0ffee","dir":".planc/sessions/20250103T100000Z-c0ffee","capsule":"local/ci","version":"0.2.0","started":"2025-01-02T15:04:05Z","exit_status":null,"plans":[{"plan":1,"plan_id":"build","outcome":"completed","failed_step":null,"redrives":1,"steps":4},{"plan":2,"plan_id":"deploy","outcome":"unfinished","failed_step":null,"redrives":0,"steps":1}]}
{"session":"20250102T000000Z-ffffff","dir":".planc/sessions/20250102T000000Z-ffffff","capsule":null,"version":null,"started":null,"exit_status":"failed","plans":[{"plan":1,"plan_id":"fail","outcome":"failed","failed_step":"two words","redrives":0,"steps":2}]}
{"session":"20250101T000000Z-eeeeee","dir":".planc/sessions/20250101T000000Z-eeeeee","capsule":"local/planc","version":"0.1.0","started":"2025-01-01T00:00:00Z","exit_status":null,"plans":[]}
{"session":"20241231T235959Z-0a0a0a","dir":".planc/sessions/20241231T235959Z-0a0a0a","capsule":"local/planc","version":"0.1.0","started":"2025-01-02T15:04:05.000000000Z","exit_status":"ok","plans":[{"plan":1,"plan_id":"hello","outcome":"completed","failed_step":null,"redrives":0,"steps":1}]}
`

// TestTraceList: every session under .planc/sessions, newest first, with
// its plans' outcomes (a plan without plan_end is unfinished), redrives
// and the step that stopped a failed one; directories that are not
// sessions are left out.
func TestTraceList(t *testing.T) {
	root := inTempDir(t, nil)
	if got := run(t, "", "trace", "list"); got.Code != 0 || got.Stdout != "SESSION  PLAN  ID  OUTCOME  REDRIVES  STEPS  FAILED STEP\n" ||
		got.Stderr != "planc trace: no sessions under .planc/sessions in the current directory or a parent\n" {
		t.Errorf("no sessions: %+v", got)
	}
	sessions := filepath.Join(root, ".planc", "sessions")
	keptSession(t, sessions)
	oldSession(t, sessions)
	const failID = "20250102T000000Z-ffffff"
	F := func(event string, fields ...any) string { return traceLine(0, event, failID, fields...) }
	testkit.WriteFiles(t, sessions,
		"20250101T000000Z-eeeeee/session.json", `{"session":"20250101T000000Z-eeeeee","capsule":"local/planc","version":"0.1.0","started":"2025-01-01T00:00:00Z","spawned_by":null,"delegation_id":null}`,
		failID+"/trace.jsonl", F("plan_start", "plan_id", "fail", "plan_file", "plans/plan-1.json", "steps", 2)+
			F("plan_step", "plan_id", "fail", "step_id", "two words", "status", "failed", "attempt", 0, "duration_ms", 0, "error", "refused")+
			F("plan_end", "plan_id", "fail", "outcome", "failed", "failed_step", "two words", "succeeded", 0, "failed", 1, "skipped", 0)+
			F("session_end", "exit_status", "failed"),
		"not-a-session/notes.txt", "x",
		"stray-file", "x",
	)
	note := tornNote(filepath.Join(".planc", "sessions", keptID))
	got := run(t, "", "trace", "list")
	if d := cmp.Diff(wantList, got.Stdout); d != "" || got.Code != 0 || got.Stderr != note {
		t.Errorf("exit %d, stderr %q; (-want +got):\n%s", got.Code, got.Stderr, d)
	}
	got = run(t, "", "trace", "list", "--format", "json")
	if d := cmp.Diff(wantListJSON, got.Stdout); d != "" || got.Code != 0 || got.Stderr != note {
		t.Errorf("exit %d, stderr %q; (-want +got):\n%s", got.Code, got.Stderr, d)
	}
	// The first session listed is the one the other views read by default.
	if got := run(t, "", "trace", "report"); !strings.Contains(got.Stderr, "plan 2 has no report yet") {
		t.Errorf("report of the newest session: %+v", got)
	}
}

// TestTraceStepsJSON: one JSON object a line, one line per row of the
// text view, in its order, with the same facts.
func TestTraceStepsJSON(t *testing.T) {
	dir := sessionTree(t)
	got := run(t, "", "trace", "steps", "--format", "json", dir)
	if got.Code != 0 || got.Stderr != "planc trace: note: "+filepath.Join(dir, "trace.jsonl")+": line 26: the last line is cut short (the trace was still being written, or its writer died); left out\n" {
		t.Fatalf("exit %d, stderr %q", got.Code, got.Stderr)
	}
	testkit.GoldenFile(t, filepath.Join("testdata", "trace", "steps.jsonl"), got.Stdout, "trace steps --format json")
	// Each line is one object, and the lines match the text view's rows.
	text := strings.Split(strings.TrimSuffix(wantSteps, "\n"), "\n")[1:]
	sc := bufio.NewScanner(strings.NewReader(got.Stdout))
	i := 0
	for ; sc.Scan(); i++ {
		var row traceview.StepJSON
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&row); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if i >= len(text) || !strings.HasPrefix(text[i], row.PlanID+" ") || !strings.Contains(text[i], " "+row.StepID+" ") {
			t.Errorf("line %d, %+v, does not match the text row %q", i+1, row, text[min(i, len(text)-1)])
		}
	}
	if i != len(text) {
		t.Errorf("%d lines, want %d", i, len(text))
	}
	// Reused steps, redrives, kept outputs, an attempt still running.
	kept := keptSession(t, t.TempDir())
	holdPlan(t, kept, 2)
	got = run(t, "", "trace", "steps", "--format", "json", kept)
	if got.Code != 0 {
		t.Fatalf("exit %d, stderr %q", got.Code, got.Stderr)
	}
	testkit.GoldenFile(t, filepath.Join("testdata", "trace", "steps-kept.jsonl"), got.Stdout, "trace steps --format json")
	// A trace with no steps gives no line at all.
	inTempDir(t, map[string]string{"empty.jsonl": ""})
	if got := run(t, "", "trace", "steps", "--format=json", "empty.jsonl"); got.Code != 0 || got.Stdout != "" {
		t.Errorf("empty trace: %+v", got)
	}
}

// TestTraceShowJSON: the whole tree as one object, delegations nested,
// every note included (the skipped line's on standard error as well).
func TestTraceShowJSON(t *testing.T) {
	dir := sessionTree(t)
	got := run(t, "", "trace", "show", "--format", "json", dir)
	wantErr := "planc trace: note: " + filepath.Join(dir, "trace.jsonl") + ": line 26: the last line is cut short (the trace was still being written, or its writer died); left out\n"
	if got.Code != 0 || got.Stderr != wantErr {
		t.Fatalf("exit %d, stderr %q", got.Code, got.Stderr)
	}
	var show traceview.ShowJSON
	dec := json.NewDecoder(strings.NewReader(got.Stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&show); err != nil {
		t.Fatal(err)
	}
	if dec.More() {
		t.Error("more than one JSON value")
	}
	testkit.GoldenFile(t, filepath.Join("testdata", "trace", "show.json"), strings.ReplaceAll(got.Stdout, dir, "$SESSION"), "trace show --format json")
	// The same facts as the text view.
	if len(show.Plans) != 2 || len(show.Delegations) != 2 || show.Delegations[0].Child == nil ||
		show.Delegations[0].Child.Delegations[0].Note == nil || *show.ExitStatus != "canceled" {
		t.Errorf("show: %+v", show)
	}
}

// TestTraceDocExamples keeps the examples of docs/trace.md, "Reading a run
// afterwards", what planc prints for keptSession and oldSession.
func TestTraceDocExamples(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "trace.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	root := inTempDir(t, nil)
	sessions := filepath.Join(root, ".planc", "sessions")
	keptSession(t, sessions)
	oldSession(t, sessions)
	indent := func(s string) string {
		return "    " + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n    ") + "\n"
	}
	for _, args := range [][]string{{"list"}, {"logs", "test", "--plan", "1"}} {
		got := run(t, "", append([]string{"trace"}, args...)...)
		block := indent("$ planc trace " + strings.Join(args, " ") + "\n" + got.Stdout)
		block = strings.ReplaceAll(block, "    \n", "\n") // blank lines stay blank
		if got.Code != 0 || !strings.Contains(doc, block) {
			t.Errorf("docs/trace.md lacks planc trace %s's output:\n%s", strings.Join(args, " "), block)
		}
	}
	steps := run(t, "", "trace", "steps", "--format", "json").Stdout
	list := run(t, "", "trace", "list", "--format", "json").Stdout
	for _, want := range []string{
		strings.Split(steps, "\n")[6],
		strings.Split(list, "\n")[0],
	} {
		if !strings.Contains(doc, "```json\n"+want+"\n```") {
			t.Errorf("docs/trace.md lacks the example line\n%s", want)
		}
	}
}

// TestTraceListRunning: an unfinished plan whose lock a planc holds is
// listed as running; once the lock is released (its planc died) it is
// unfinished again (S27).
func TestTraceListRunning(t *testing.T) {
	root := inTempDir(t, nil)
	const id = "20250105T000000Z-abcdef"
	dir := filepath.Join(root, ".planc", "sessions", id)
	testkit.WriteFiles(t, dir, "trace.jsonl",
		traceLine(0, "session_start", id, "capsule", "local/planc", "version", "0.1.0", "spawned_by", nil, "delegation_id", nil)+
			traceLine(0, "plan_start", id, "plan_id", "long", "plan_file", "plans/plan-1.json", "steps", 1))
	lock, err := (&session.Session{Dir: dir}).LockPlan(1, false)
	if err != nil {
		t.Fatal(err)
	}
	row := func() string {
		got := run(t, "", "trace", "list")
		if got.Code != 0 {
			t.Fatalf("trace list: %+v", got)
		}
		return strings.Fields(strings.Split(got.Stdout, "\n")[1])[3]
	}
	if got := row(); got != "running" {
		t.Errorf("with its lock held: outcome %q, want running", got)
	}
	lock.Unlock()
	if got := row(); got != "unfinished" {
		t.Errorf("with its lock free: outcome %q, want unfinished", got)
	}
}
