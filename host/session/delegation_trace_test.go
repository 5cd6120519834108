package session

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/internal/sessionfmt"
	"github.com/planc/planc/internal/testkit"
)

func TestDelegationTraceLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), sessionfmt.TraceFile)
	tr, err := OpenTrace(path, "s-1")
	if err != nil {
		t.Fatal(err)
	}
	tr.DelegationStart("p", "w", "plan-1-w-1", "local/worker", "0.1.0", 4242)
	tr.Delegation("p", "w", "plan-1-w-1", DelegationCompleted, "")
	tr.Delegation("p", "w", "plan-1-w-2", DelegationFailed, `its command "x" exited with status 3`)
	tr.TaskCanceled("plan-1", nil)
	tr.TaskCanceled("plan-2", []string{"a", "b"})
	tr.TaskEnd("plan-2", TaskEndCanceled)
	tr.ParentEnded()
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	raw, objs := testkit.ReadTrace(t, path)
	for _, o := range objs {
		delete(o, "ts") // ReadTrace checked its form
	}
	want := []map[string]any{
		{"event": "delegation_start", "session": "s-1", "plan_id": "p", "step_id": "w", "delegation_id": "plan-1-w-1", "capsule": "local/worker", "version": "0.1.0", "pid": 4242.0},
		{"event": "delegation", "session": "s-1", "plan_id": "p", "step_id": "w", "delegation_id": "plan-1-w-1", "outcome": "completed", "reason": nil},
		{"event": "delegation", "session": "s-1", "plan_id": "p", "step_id": "w", "delegation_id": "plan-1-w-2", "outcome": "failed", "reason": `its command "x" exited with status 3`},
		{"event": "task_canceled", "session": "s-1", "task_id": "plan-1", "delegation_ids": []any{}},
		{"event": "task_canceled", "session": "s-1", "task_id": "plan-2", "delegation_ids": []any{"a", "b"}},
		{"event": "task_end", "session": "s-1", "task_id": "plan-2", "outcome": "canceled"},
		{"event": "spawner_ended", "session": "s-1"},
	}
	if diff := cmp.Diff(want, objs); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
	// ts, event and session lead every line, in that order.
	lead := regexp.MustCompile(`^\{"ts":"[^"]+","event":"[a-z_]+","session":"s-1"(,.*)?\}$`)
	for _, l := range raw {
		if !lead.MatchString(l) {
			t.Errorf("line %s", l)
		}
	}
}

func TestCompletionFile(t *testing.T) {
	dir := t.TempDir()
	if err := WriteCompletion(dir, LauncherEnded); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, sessionfmt.CompletionFile))
	if string(b) != `{"status":"terminated","reported_by":"launcher","detail":"the parent ended this delegation"}`+"\n" {
		t.Errorf("completion.json %s", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left %v", ents)
	}
}
