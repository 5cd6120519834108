package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/internal/testkit"
)

// traceLine is one trace.jsonl line as docs/trace.md's tables have it: ts,
// event, session, then the event's fields in the order given (name,
// value, …).
func traceLine(sec float64, event, session string, fields ...any) string {
	q := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		return string(b)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `{"ts":"2025-01-02T15:04:%012.9fZ","event":%s,"session":%s`, 5+sec, q(event), q(session))
	for i := 0; i+1 < len(fields); i += 2 {
		fmt.Fprintf(&b, ",%s:%s", q(fields[i]), q(fields[i+1]))
	}
	return b.String() + "}\n"
}

// writeFiles writes files (slash paths relative to dir) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		testkit.WriteFiles(t, dir, name, body)
	}
}

const (
	parentID = "20250102T150405Z-a1b2c3"
	childID  = "20250102T150406Z-d4e5f6"
	child2ID = "20250102T150409Z-0f0f0f"
)

// sessionTree writes a session directory by hand: a parent whose first
// plan retries a shell step, skips a step and delegates to a worker that
// itself delegates to a capsule whose directory is missing; whose second
// plan is cancelled while a delegation runs; whose trace ends in a line
// cut short. It returns the directory.
func sessionTree(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "sess")
	P := func(sec float64, event string, fields ...any) string {
		return traceLine(sec, event, parentID, fields...)
	}
	C := func(sec float64, event string, fields ...any) string {
		return traceLine(sec, event, childID, fields...)
	}
	C2 := func(sec float64, event string, fields ...any) string {
		return traceLine(sec, event, child2ID, fields...)
	}
	parent := P(0, "session_start", "capsule", "local/planner", "version", "0.1.0", "spawned_by", nil, "delegation_id", nil) +
		P(0.1, "plan_start", "plan_id", "refresh-fixtures", "plan_file", "plans/plan-1.json", "steps", 4) +
		P(0.2, "plan_step_start", "plan_id", "refresh-fixtures", "step_id", "list", "kind", "tool", "attempt", 1) +
		P(0.21, "plan_step", "plan_id", "refresh-fixtures", "step_id", "list", "status", "success", "attempt", 1, "duration_ms", 12, "error", nil) +
		P(0.3, "plan_step_start", "plan_id", "refresh-fixtures", "step_id", "check", "kind", "shell", "attempt", 1) +
		P(3.5, "plan_step", "plan_id", "refresh-fixtures", "step_id", "check", "status", "failed", "attempt", 1, "duration_ms", 3200, "error", "exit status 1") +
		P(3.6, "plan_step_start", "plan_id", "refresh-fixtures", "step_id", "check", "kind", "shell", "attempt", 2) +
		P(6.6, "plan_step", "plan_id", "refresh-fixtures", "step_id", "check", "status", "failed", "attempt", 2, "duration_ms", 3000, "error", "exit status 1\n--- FAIL: TestSeed") +
		P(6.7, "plan_step", "plan_id", "refresh-fixtures", "step_id", "note", "status", "skipped", "attempt", 0, "duration_ms", 0, "error", nil) +
		P(6.8, "plan_step_start", "plan_id", "refresh-fixtures", "step_id", "fix", "kind", "capsule", "attempt", 1) +
		P(6.9, "delegation_start", "plan_id", "refresh-fixtures", "step_id", "fix", "delegation_id", "d-1", "capsule", "local/worker", "version", "0.1.0", "pid", 4242) +
		P(9.0, "delegation", "plan_id", "refresh-fixtures", "step_id", "fix", "delegation_id", "d-1", "outcome", "completed", "reason", nil) +
		P(9.1, "plan_step", "plan_id", "refresh-fixtures", "step_id", "fix", "status", "success", "attempt", 1, "duration_ms", 2300, "error", nil) +
		P(9.2, "plan_end", "plan_id", "refresh-fixtures", "outcome", "completed", "failed_step", nil, "succeeded", 2, "failed", 1, "skipped", 1) +
		P(10, "plan_start", "plan_id", "cleanup", "plan_file", "plans/plan-2.json", "steps", 2) +
		P(10.2, "protected_path_denied", "plan_id", "cleanup", "step_id", "wipe", "path", "go.mod") +
		P(10.3, "plan_step", "plan_id", "cleanup", "step_id", "wipe", "status", "failed", "attempt", 0, "duration_ms", 0, "error", `refused: "go.mod" is read-only`) +
		P(10.4, "plan_step_start", "plan_id", "cleanup", "step_id", "stop", "kind", "capsule", "attempt", 1) +
		P(10.5, "delegation_start", "plan_id", "cleanup", "step_id", "stop", "delegation_id", "d-2", "capsule", "local/worker", "version", "0.1.0", "pid", 4300) +
		P(11, "task_canceled", "task_id", "task-1", "delegation_ids", []string{"d-2"}) +
		P(11.1, "delegation", "plan_id", "cleanup", "step_id", "stop", "delegation_id", "d-2", "outcome", "terminated", "reason", "the delegating task was cancelled") +
		P(11.2, "task_end", "task_id", "task-1", "outcome", "canceled") +
		P(11.3, "plan_step", "plan_id", "cleanup", "step_id", "stop", "status", "failed", "attempt", 1, "duration_ms", 800, "error", "the task running this plan was cancelled; this step's sub-capsule was ended with it, and is not retried") +
		P(11.4, "plan_end", "plan_id", "cleanup", "outcome", "canceled", "failed_step", nil, "succeeded", 0, "failed", 2, "skipped", 0) +
		P(11.5, "session_end", "exit_status", "canceled") +
		`{"ts":"2025-01-02T15:04:16.6`
	child := C(0, "session_start", "capsule", "local/worker", "version", "0.1.0", "spawned_by", parentID, "delegation_id", "d-1") +
		C(0.1, "plan_start", "plan_id", "worker", "plan_file", "plans/plan-1.json", "steps", 1) +
		C(0.2, "plan_step_start", "plan_id", "worker", "step_id", "ask", "kind", "capsule", "attempt", 1) +
		C(0.3, "delegation_start", "plan_id", "worker", "step_id", "ask", "delegation_id", "d-9", "capsule", "team/helper", "version", "1.2.0", "pid", 4343) +
		C(0.4, "heartbeat", "beats", 1) +
		C(1.9, "delegation", "plan_id", "worker", "step_id", "ask", "delegation_id", "d-9", "outcome", "failed", "reason", "the roost refused: helper is not in spawn.allow") +
		C(2.0, "plan_step", "plan_id", "worker", "step_id", "ask", "status", "failed", "attempt", 1, "duration_ms", 1700, "error", "spawn refused") +
		C(2.1, "plan_end", "plan_id", "worker", "outcome", "failed", "failed_step", "ask", "succeeded", 0, "failed", 1, "skipped", 0) +
		C(2.2, "session_end", "exit_status", "failed")
	child2 := C2(0, "session_start", "capsule", "local/worker", "version", "0.1.0", "spawned_by", parentID, "delegation_id", "d-2") +
		C2(0.1, "plan_start", "plan_id", "worker", "plan_file", "plans/plan-1.json", "steps", 1) +
		C2(0.2, "plan_step_start", "plan_id", "worker", "step_id", "long", "kind", "shell", "attempt", 1) +
		C2(1.0, "session_end", "exit_status", "canceled")
	writeFiles(t, dir, map[string]string{
		"session.json":                    `{"session":"` + parentID + `","capsule":"local/planner","version":"0.1.0","started":"2025-01-02T15:04:05Z","spawned_by":null,"delegation_id":null}` + "\n",
		"trace.jsonl":                     parent,
		"delegations/d-1/session.json":    `{"session":"` + childID + `","capsule":"local/worker","version":"0.1.0","started":"2025-01-02T15:04:06Z","spawned_by":"` + parentID + `","delegation_id":"d-1"}` + "\n",
		"delegations/d-1/trace.jsonl":     child,
		"delegations/d-2/trace.jsonl":     child2,
		"delegations/d-2/completion.json": `{"status":"terminated","reported_by":"launcher","detail":"the parent ended this delegation"}`,
	})
	return dir
}

const wantShow = `session 20250102T150405Z-a1b2c3
  capsule  local/planner 0.1.0
  started  2025-01-02T15:04:05Z
  exit     canceled

  plan refresh-fixtures (plans/plan-1.json): completed; 4 steps, 2 succeeded, 1 failed, 1 skipped
    STEP   ATTEMPT  STATUS   DURATION  ERROR
    list   1        success  12ms
    check  1        failed   3.2s      exit status 1
    check  2        failed   3s        exit status 1\n--- FAIL: TestSeed
    note   -        skipped  -
    fix    1        success  2.3s

  plan cleanup (plans/plan-2.json): canceled; 2 steps, 0 succeeded, 2 failed, 0 skipped
    STEP  ATTEMPT  STATUS  DURATION  ERROR
    wipe  -        failed  -         refused: "go.mod" is read-only
    stop  1        failed  800ms     the task running this plan was cancelled; this step's sub-capsule was ended with it, and is not retried
    refused: step "wipe" would write under the read-only path "go.mod" (protected_path_denied)

  tasks
    task "task-1": canceled, ending delegations d-2; ended canceled

  Delegations
    delegation d-1: capsule local/worker 0.1.0, step "fix" of plan "refresh-fixtures", pid 4242; completed
      session 20250102T150406Z-d4e5f6 (delegations/d-1)
        capsule     local/worker 0.1.0
        started     2025-01-02T15:04:06Z
        spawned by  20250102T150405Z-a1b2c3, delegation d-1
        exit        failed

        plan worker (plans/plan-1.json): failed, stopped by step "ask"; 1 step, 0 succeeded, 1 failed, 0 skipped
          STEP  ATTEMPT  STATUS  DURATION  ERROR
          ask   1        failed  1.7s      spawn refused

        Delegations
          delegation d-9: capsule team/helper 1.2.0, step "ask" of plan "worker", pid 4343; failed
            reason: the roost refused: helper is not in spawn.allow
            note: no session directory at delegations/d-9

        notes
          line 5: unknown event "heartbeat"; not shown

    delegation d-2: capsule local/worker 0.1.0, step "stop" of plan "cleanup", pid 4300; terminated
      reason: the delegating task was cancelled
      completion: terminated, reported by launcher: the parent ended this delegation
      session 20250102T150409Z-0f0f0f (delegations/d-2)
        capsule     local/worker 0.1.0
        started     2025-01-02T15:04:05.000000000Z
        spawned by  20250102T150405Z-a1b2c3, delegation d-2
        exit        canceled

        plan worker (plans/plan-1.json): no plan_end (still running, or its runtime died); 1 step
          STEP  ATTEMPT  STATUS     DURATION  ERROR
          long  1        unsettled  -

        Delegations: none

        notes
          no session.json; the session is described from its trace
`

const wantSteps = `PLAN              STEP   ATTEMPT  STATUS   DURATION  ERROR
refresh-fixtures  list   1        success  12ms
refresh-fixtures  check  1        failed   3.2s      exit status 1
refresh-fixtures  check  2        failed   3s        exit status 1\n--- FAIL: TestSeed
refresh-fixtures  note   -        skipped  -
refresh-fixtures  fix    1        success  2.3s
cleanup           wipe   -        failed   -         refused: "go.mod" is read-only
cleanup           stop   1        failed   800ms     the task running this plan was cancelled; this step's sub-capsule was ended with it, and is not retried
`

func TestTraceShow(t *testing.T) {
	dir := sessionTree(t)
	for _, path := range []string{dir, filepath.Join(dir, "trace.jsonl")} {
		got := run(t, "", "trace", "show", path)
		// A skipped line's note goes to standard error, naming its trace.
		wantErr := "planc trace: note: " + filepath.Join(dir, "trace.jsonl") + ": line 26: the last line is cut short (the trace was still being written, or its writer died); left out\n"
		if got.Code != 0 || got.Stderr != wantErr {
			t.Fatalf("%s: exit %d, stderr %q, want %q", path, got.Code, got.Stderr, wantErr)
		}
		if d := cmp.Diff(wantShow, got.Stdout); d != "" {
			t.Errorf("%s (-want +got):\n%s", path, d)
		}
	}
}

func TestTraceSteps(t *testing.T) {
	dir := sessionTree(t)
	got := run(t, "", "trace", "steps", dir)
	if got.Code != 0 {
		t.Fatalf("exit %d, stderr %q", got.Code, got.Stderr)
	}
	if d := cmp.Diff(wantSteps, got.Stdout); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	// The note names the trace file, as docs/trace.md says.
	wantErr := "planc trace: note: " + filepath.Join(dir, "trace.jsonl") + ": line 26: the last line is cut short (the trace was still being written, or its writer died); left out\n"
	if got.Stderr != wantErr {
		t.Errorf("stderr %q, want %q", got.Stderr, wantErr)
	}
}

func TestTraceUsage(t *testing.T) {
	inTempDir(t, map[string]string{"empty.jsonl": ""})
	if err := os.Mkdir("not-a-session", 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no view", []string{"trace"}, "say which view: steps, show, logs, report, list, prune, graph or html"},
		{"unknown view", []string{"trace", "shwo", "x"}, `unknown view "shwo"; did you mean "show"?`},
		{"far view", []string{"trace", "timeline"}, `unknown view "timeline"; want steps, show, logs, report, list, prune, graph or html`},
		{"format of logs", []string{"trace", "logs", "x", "--format", "json"}, "--format is for planc trace steps, show, list, report or graph, not logs"},
		{"attempt of steps", []string{"trace", "steps", "--attempt", "1"}, "--attempt is for planc trace logs, not steps"},
		{"plan of list", []string{"trace", "list", "--plan", "1"}, "--plan is for planc trace logs, report, graph or html, not list"},
		{"plan 0", []string{"trace", "report", "--plan", "0"}, "--plan counts from 1: plans/plan-1.json is plan 1"},
		{"attempt -1", []string{"trace", "logs", "x", "--attempt=-1"}, "--attempt counts from 1"},
		{"bad format", []string{"trace", "show", "--format", "jsno"}, `invalid value "jsno" for --format: want text or json; did you mean "json"?`},
		{"logs without a step", []string{"trace", "logs"}, "name the step: planc trace logs [SESSION] STEP"},
		{"logs with three", []string{"trace", "logs", "a", "b", "c"}, "give a session and a step at most"},
		{"two reports", []string{"trace", "report", "a", "b"}, "give at most one trace file or session directory"},
		{"list with a path", []string{"trace", "list", "x"}, "planc trace list takes no arguments: it lists the project's sessions, under .planc/sessions of the current directory or the nearest parent holding a .planc/"},
		{"logs without sessions", []string{"trace", "logs", "x"}, "no sessions"},
		{"report without sessions", []string{"trace", "report"}, "no sessions"},
		{"two paths", []string{"trace", "steps", "a", "b"}, "give at most one trace file or session directory"},
		{"unknown flag", []string{"trace", "show", "--json", "x"}, "unknown flag --json"},
		{"missing path", []string{"trace", "show", "nope"}, "planc trace: no session at nope; name a session directory, its trace.jsonl, or a session id that planc trace list shows\n"},
		{"missing path of logs", []string{"trace", "logs", "nope", "a"}, "planc trace: no session at nope; name a session directory"},
		{"not a session", []string{"trace", "show", "not-a-session"}, "not-a-session is not a session directory"},
		{"no sessions", []string{"trace", "steps"}, "planc trace: no sessions: there is no .planc/sessions in the current directory or a parent; planc run makes one at the project's root, or name a session directory elsewhere\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := run(t, "", tt.args...)
			if got.Code != 2 || got.Stdout != "" || !strings.Contains(got.Stderr, tt.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and %q", got.Code, got.Stdout, got.Stderr, tt.want)
			}
		})
	}
	// An empty trace file is a session with nothing in it.
	if got := run(t, "", "trace", "steps", "empty.jsonl"); got.Code != 0 || got.Stdout != "PLAN  STEP  ATTEMPT  STATUS  DURATION  ERROR\n" {
		t.Errorf("empty trace: %+v", got)
	}
	if got := run(t, "", "help", "trace"); got.Code != 0 || !strings.HasPrefix(got.Stdout, "usage: planc trace steps|show") {
		t.Errorf("help trace: %+v", got)
	}
}

// TestTraceLatest: without a path, the newest session under
// .planc/sessions is read.
func TestTraceLatest(t *testing.T) {
	inTempDir(t, nil)
	old, newer := "20250101T000000Z-aaaaaa", "20250102T000000Z-bbbbbb"
	writeFiles(t, ".planc/sessions", map[string]string{
		old + "/trace.jsonl":   traceLine(0, "session_start", old, "capsule", "local/old", "version", "0.1.0", "spawned_by", nil, "delegation_id", nil),
		newer + "/trace.jsonl": traceLine(0, "session_start", newer, "capsule", "local/new", "version", "0.1.0", "spawned_by", nil, "delegation_id", nil),
	})
	got := run(t, "", "trace", "show")
	if got.Code != 0 || !strings.HasPrefix(got.Stdout, "session "+newer+"\n  capsule  local/new 0.1.0\n") {
		t.Errorf("exit %d, stdout %q, stderr %q", got.Code, got.Stdout, got.Stderr)
	}
}
