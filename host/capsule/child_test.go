package capsule

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/host/session"
	"github.com/planc/planc/internal/testkit"
)

// childRun is RunChild's outcome in a test.
type childRun struct {
	code           session.ExitCode
	stdout, stderr string
	status         []status
	session        string // the session directory
}

// runTestChild runs RunChild in-process on the manifest text, with the
// objective on standard input; its plan entrypoint fails the test.
func runTestChild(t *testing.T, ctx context.Context, manifest, objective string, lifeline *os.File, files ...string) childRun {
	t.Helper()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	t.Setenv(EnvObjectiveFile, "") // RunChild sets it for its command
	dir := t.TempDir()
	roost := testkit.WriteRoost(t, dir, "local/w", manifest)
	testkit.WriteFiles(t, filepath.Join(roost, "local/w"), files...)
	sess := filepath.Join(dir, "parent", session.DelegationsDir, "plan-1-w-1")
	var so, se, st bytes.Buffer
	cfg := ChildConfig{
		Manifest: filepath.Join(roost, "local/w", ManifestFile), SessionDir: sess, Roost: roost, WorkDir: dir,
		SpawnedBy: "parent-1", DelegationID: "plan-1-w-1",
		Stdin: strings.NewReader(objective), Stdout: &so, Stderr: &se, Status: &st,
	}
	if lifeline != nil {
		cfg.Lifeline = lifeline
	}
	noPlan := func(context.Context, PlanEntry) (PlanResult, error) {
		t.Error("the plan runner was called")
		return PlanResult{}, nil
	}
	r := childRun{code: RunChild(ctx, cfg, noPlan), stdout: so.String(), stderr: se.String(), session: sess}
	for line := range strings.SplitSeq(strings.TrimSpace(st.String()), "\n") {
		var s status
		if line != "" {
			if err := json.Unmarshal([]byte(line), &s); err != nil {
				t.Fatalf("status line %q: %v", line, err)
			}
			r.status = append(r.status, s)
		}
	}
	return r
}

// events returns the child session's trace events, with exit_status.
func (r childRun) events(t *testing.T) []string {
	t.Helper()
	return testkit.Events(testkit.TraceLines(t, filepath.Join(r.session, session.TraceFile)))
}

func TestRunChildCommand(t *testing.T) {
	r := runTestChild(t, t.Context(), `{"name": "local/w", "version": "1.0.0", "entrypoint": {"command": ["sh", "-c", "read x; echo \"got $x\"; cat \"$PLANC_OBJECTIVE_FILE\""]}}`, "the task\n", nil)
	if r.code != session.ExitCompleted || r.stdout != "got the task\nthe task\n" || r.stderr != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if diff := cmp.Diff([]status{{Up: true}, {Outcome: "completed"}}, r.status); diff != "" {
		t.Errorf("status (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"session_start", "session_end:ok"}, r.events(t)); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
	objs := testkit.TraceLines(t, filepath.Join(r.session, session.TraceFile))
	if o := objs[0]; o["capsule"] != "local/w" || o["version"] != "1.0.0" || o["spawned_by"] != "parent-1" || o["delegation_id"] != "plan-1-w-1" {
		t.Errorf("session_start %v", o)
	}
	s, err := session.Open(r.session, session.Info{}) // reads the session.json there
	if err != nil || *s.Info.SpawnedBy != "parent-1" || *s.Info.DelegationID != "plan-1-w-1" || s.Info.Capsule != "local/w" {
		t.Errorf("session.json %+v, %v", s, err)
	}
}

func TestRunChildCommandFails(t *testing.T) {
	r := runTestChild(t, t.Context(), `{"name": "local/w", "entrypoint": {"command": ["sh", "-c", "echo partial; exit 3"]}}`, "x", nil)
	want := []status{{Up: true}, {Outcome: "failed", Reason: "its command sh exited with status 3"}}
	if r.code != session.ExitFailed || r.stdout != "partial\n" || !cmp.Equal(want, r.status) {
		t.Fatalf("exit %d, stdout %q, status %+v", r.code, r.stdout, r.status)
	}
	if diff := cmp.Diff([]string{"session_start", "session_end:failed"}, r.events(t)); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
	r = runTestChild(t, t.Context(), `{"name": "local/w", "entrypoint": {"command": ["./missing.sh"]}}`, "x", nil)
	if r.code != session.ExitFailed || len(r.status) != 2 || !strings.HasPrefix(r.status[1].Reason, `its command: cannot run "./missing.sh"`) {
		t.Errorf("missing command: exit %d, status %+v", r.code, r.status)
	}
}

// TestRunChildCanceled: SIGTERM (the context) reaches the command's
// group; it winds down and the session ends canceled.
func TestRunChildCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		time.Sleep(300 * time.Millisecond)
		cancel()
	}()
	r := runTestChild(t, ctx, `{"name": "local/w", "entrypoint": {"command": ["sh", "-c", "trap 'echo bye; exit 0' TERM; echo started; sleep 30 & wait"]}}`, "x", nil)
	if r.code != session.ExitCanceled || r.stdout != "started\nbye\n" {
		t.Fatalf("exit %d, stdout %q", r.code, r.stdout)
	}
	if len(r.status) != 2 || r.status[1].Outcome != "canceled" {
		t.Errorf("status %+v", r.status)
	}
	if diff := cmp.Diff([]string{"session_start", "session_end:canceled"}, r.events(t)); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
}

// TestRunChildParentEnded: when the lifeline ends, the sub-capsule
// writes spawner_ended, ends its command (SIGKILL after the grace period
// for one that ignores SIGTERM) and returns with no session_end and no
// outcome.
func TestRunChildParentEnded(t *testing.T) {
	t.Setenv(EnvGrace, "200ms")
	lr, lw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer lr.Close()
	go func() {
		time.Sleep(300 * time.Millisecond)
		lw.Close()
	}()
	start := time.Now()
	r := runTestChild(t, t.Context(), `{"name": "local/w", "entrypoint": {"command": ["sh", "-c", "trap '' TERM; echo started; sleep 30"]}}`, "x", lr)
	if r.code != session.ExitCanceled || r.stdout != "started\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("took %v", d)
	}
	if diff := cmp.Diff([]status{{Up: true}}, r.status); diff != "" {
		t.Errorf("status (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"session_start", "spawner_ended"}, r.events(t)); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
}
