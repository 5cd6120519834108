package serve

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/planc/planc/host/capenv"
	"github.com/planc/planc/host/capsule"
	"github.com/planc/planc/host/session"
	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/vm"
)

// cancelManifest spawns the two capsules of cancelRoost and may run sh.
const cancelManifest = `{
  "name": "local/top",
  "capabilities": {"plan": {"submit": true}, "spawn": {"allow": ["local/polite", "local/stubborn"]}, "shell": {"allow": ["sh"]}},
  "tools": {"builtin": ["notes"]}
}`

// cancelPlan runs a sub-capsule that winds down on SIGTERM (polite), one
// that ignores it (stubborn), a shell step, and a step after polite.
const cancelPlan = `{"id": "stop", "steps": [
	{"id": "polite", "capsule": "polite", "input": "wait"},
	{"id": "stubborn", "capsule": "stubborn", "input": "wait"},
	{"id": "quick", "shell": "sh -c 'echo quick'"},
	{"id": "later", "tool": "notes", "depends_on": ["polite"], "input": {"body": "x"}}
]}`

// needScope skips the test without a delegated cgroup v2 scope, and
// builds the planc the host's re-executions become.
func needScope(t *testing.T) {
	t.Helper()
	testkit.NeedScope(t)
	plancBinary(t)
}

// TestCancel: cancelling the submit-plan request (the Go SDK client sends
// notifications/cancelled) cancels the plan as docs/plans.md, "Cancel", says
// (S22, S30): the running sub-capsules are ended, the undispatched step is
// skipped, the trace records a cancelled task; nothing is left running, and the
// connection's next plan is plan-2 of the same session.
func TestCancel(t *testing.T) {
	needScope(t)
	t.Setenv(capsule.EnvGrace, "500ms")
	dir := t.TempDir()
	testkit.WriteRoost(t, dir, testkit.CancelCapsules("310.11", "310.22")...)
	f := connect(t, Config{WorkDir: dir, Env: capenv.New(manifest(t, cancelManifest), capenv.Dir(dir), capenv.WorkDir(dir))})

	ctx, cancel := context.WithCancel(context.Background())
	called := make(chan error, 1)
	go func() {
		_, err := f.cs.CallTool(ctx, &mcp.CallToolParams{Name: SubmitPlan, Arguments: json.RawMessage(cancelPlan)})
		called <- err
	}()
	sess := waitSession(t, dir)
	testkit.WaitStarted(t, sess, 2)
	cancel()
	if err := <-called; !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled call returned %v", err)
	}
	lines := testkit.WaitEvent(t, filepath.Join(sess, "trace.jsonl"), "session_end", 1)

	settled := map[string]string{}
	var tail []string
	for _, l := range lines {
		switch l["event"] {
		case "plan_step":
			settled[l["step_id"].(string)] = l["status"].(string) + ": " + str(l["error"])
		case "task_canceled", "delegation", "task_end", "plan_end", "session_end":
			tail = append(tail, str(l["event"])+" "+str(l["task_id"])+str(l["delegation_id"])+" "+str(l["outcome"])+str(l["exit_status"])+" "+str(l["reason"]))
		}
	}
	wantSettled := map[string]string{
		"polite":   "failed: " + vm.CapsuleEnded,
		"stubborn": "failed: " + vm.CapsuleEnded,
		"quick":    "success: ",
		"later":    "skipped: " + vm.CanceledBeforeRun,
	}
	for k, v := range wantSettled {
		if settled[k] != v {
			t.Errorf("step %s settled %q, want %q", k, settled[k], v)
		}
	}
	slices.Sort(tail[1:3]) // the two delegation lines, in the order they were ended
	wantTail := []string{
		"task_canceled plan-1  ",
		"delegation plan-1-polite-1 terminated " + session.ReasonTaskCanceled,
		"delegation plan-1-stubborn-1 terminated " + session.ReasonTaskCanceled,
		"task_end plan-1 canceled ",
		"plan_end  canceled ",
		"session_end  canceled ",
	}
	if !slices.Equal(tail, wantTail) {
		t.Errorf("the trace ends\n%s\nwant\n%s", strings.Join(tail, "\n"), strings.Join(wantTail, "\n"))
	}
	for _, m := range []string{"sleep 310.11", "sleep 310.22", "--roost " + filepath.Join(dir, "roost")} {
		if left := testkit.StillRunning(m, 0); len(left) > 0 {
			t.Errorf("%q left running: %v", m, left)
		}
	}
	if left := testkit.ScopesLeft(t, testkit.SessionID(t, sess)); len(left) > 0 {
		t.Errorf("cgroups left behind: %v", left)
	}

	r := f.call(t, context.Background(), SubmitPlan, `{"id": "next", "steps": [{"id": "n", "tool": "notes", "input": {"body": "after"}}]}`, nil)
	if r.IsError || r.Meta["task_id"] != "plan-2" || r.Meta["session"] != sess {
		t.Errorf("the next plan: %q, _meta %v", texts(r), r.Meta)
	}
}

// str is v's text, "" for null.
func str(v any) string {
	s, _ := v.(string)
	return s
}

// waitSession returns the one session directory under dir once it exists.
func waitSession(t *testing.T, dir string) string {
	t.Helper()
	var s []string
	testkit.Eventually(t, 0, "a session under "+dir, func() bool {
		s, _ = filepath.Glob(filepath.Join(dir, ".planc", "sessions", "*"))
		return len(s) == 1
	})
	return s[0]
}
