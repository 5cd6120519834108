package host

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
)

// capsuleRun is RunCapsule's outcome in a test.
type capsuleRun struct {
	code           int
	stdout, stderr string
	status         []capsuleStatus
	session        string // the session directory
}

// runTestCapsule runs RunCapsule in-process on the manifest text, with
// the objective on standard input.
func runTestCapsule(t *testing.T, ctx context.Context, manifest, objective string, lifeline *os.File, files ...string) capsuleRun {
	t.Helper()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	t.Setenv(EnvObjectiveFile, "") // RunCapsule sets it for its command
	dir := t.TempDir()
	roost := writeRoost(t, dir, "local/w", manifest)
	for i := 0; i+1 < len(files); i += 2 {
		os.WriteFile(filepath.Join(roost, "local/w", files[i]), []byte(files[i+1]), 0o644)
	}
	sess := filepath.Join(dir, "parent", DelegationsDir, "plan-1-w-1")
	var so, se, st bytes.Buffer
	cfg := CapsuleConfig{
		Manifest: filepath.Join(roost, "local/w", RoostManifestFile), SessionDir: sess, Roost: roost, WorkDir: dir,
		SpawnedBy: "parent-1", DelegationID: "plan-1-w-1",
		Stdin: strings.NewReader(objective), Stdout: &so, Stderr: &se, Status: &st,
	}
	if lifeline != nil {
		cfg.Lifeline = lifeline
	}
	r := capsuleRun{code: RunCapsule(ctx, cfg), stdout: so.String(), stderr: se.String(), session: sess}
	for line := range strings.SplitSeq(strings.TrimSpace(st.String()), "\n") {
		var s capsuleStatus
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
func (r capsuleRun) events(t *testing.T) []string {
	t.Helper()
	return readTraceEvents(t, filepath.Join(r.session, TraceFile))
}

func TestRunCapsuleCommand(t *testing.T) {
	r := runTestCapsule(t, t.Context(), `{"name": "local/w", "version": "1.0.0", "entrypoint": {"command": ["sh", "-c", "read x; echo \"got $x\"; cat \"$PLANC_OBJECTIVE_FILE\""]}}`, "the task\n", nil)
	if r.code != ExitCompleted || r.stdout != "got the task\nthe task\n" || r.stderr != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if diff := cmp.Diff([]capsuleStatus{{Up: true}, {Outcome: "completed"}}, r.status); diff != "" {
		t.Errorf("status (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"session_start", "session_end:ok"}, r.events(t)); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
	_, objs := readTrace(t, filepath.Join(r.session, TraceFile))
	if o := objs[0]; o["capsule"] != "local/w" || o["version"] != "1.0.0" || o["spawned_by"] != "parent-1" || o["delegation_id"] != "plan-1-w-1" {
		t.Errorf("session_start %v", o)
	}
	s, err := readSession(r.session)
	if err != nil || *s.Info.SpawnedBy != "parent-1" || *s.Info.DelegationID != "plan-1-w-1" || s.Info.Capsule != "local/w" {
		t.Errorf("session.json %+v, %v", s, err)
	}
}

func TestRunCapsuleCommandFails(t *testing.T) {
	r := runTestCapsule(t, t.Context(), `{"name": "local/w", "entrypoint": {"command": ["sh", "-c", "echo partial; exit 3"]}}`, "x", nil)
	want := []capsuleStatus{{Up: true}, {Outcome: "failed", Reason: "its command sh exited with status 3"}}
	if r.code != ExitFailed || r.stdout != "partial\n" || !cmp.Equal(want, r.status) {
		t.Fatalf("exit %d, stdout %q, status %+v", r.code, r.stdout, r.status)
	}
	if diff := cmp.Diff([]string{"session_start", "session_end:failed"}, r.events(t)); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
	r = runTestCapsule(t, t.Context(), `{"name": "local/w", "entrypoint": {"command": ["./missing.sh"]}}`, "x", nil)
	if r.code != ExitFailed || len(r.status) != 2 || !strings.HasPrefix(r.status[1].Reason, `its command: cannot run "./missing.sh"`) {
		t.Errorf("missing command: exit %d, status %+v", r.code, r.status)
	}
}

// TestRunCapsuleCanceled: SIGTERM (the context) reaches the command's
// group; it winds down and the session ends canceled.
func TestRunCapsuleCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		time.Sleep(300 * time.Millisecond)
		cancel()
	}()
	r := runTestCapsule(t, ctx, `{"name": "local/w", "entrypoint": {"command": ["sh", "-c", "trap 'echo bye; exit 0' TERM; echo started; sleep 30 & wait"]}}`, "x", nil)
	if r.code != ExitCanceled || r.stdout != "started\nbye\n" {
		t.Fatalf("exit %d, stdout %q", r.code, r.stdout)
	}
	if len(r.status) != 2 || r.status[1].Outcome != "canceled" {
		t.Errorf("status %+v", r.status)
	}
	if diff := cmp.Diff([]string{"session_start", "session_end:canceled"}, r.events(t)); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
}

// TestRunCapsuleSpawnerEnded: when the lifeline ends, the sub-capsule
// writes spawner_ended, ends its command (SIGKILL after the grace period
// for one that ignores SIGTERM) and returns with no session_end and no
// outcome.
func TestRunCapsuleSpawnerEnded(t *testing.T) {
	t.Setenv(EnvCapsuleGrace, "200ms")
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
	r := runTestCapsule(t, t.Context(), `{"name": "local/w", "entrypoint": {"command": ["sh", "-c", "trap '' TERM; echo started; sleep 30"]}}`, "x", lr)
	if r.code != ExitCanceled || r.stdout != "started\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("took %v", d)
	}
	if diff := cmp.Diff([]capsuleStatus{{Up: true}}, r.status); diff != "" {
		t.Errorf("status (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"session_start", "spawner_ended"}, r.events(t)); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
}

// TestRunCapsulePlan: a plan entrypoint runs under the capsule's own
// manifest, which needs no plan.submit, and answers with its report.
func TestRunCapsulePlan(t *testing.T) {
	manifest := `{"name": "local/w", "tools": {"builtin": ["notes", "read-file"]}, "entrypoint": {"plan": "plan.json"}}`
	plan := `{"id": "inner", "steps": [{"id": "n", "tool": "notes", "input": {"body": "noted"}}]}`
	r := runTestCapsule(t, t.Context(), manifest, "x", nil, "plan.json", plan)
	if r.code != ExitCompleted {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	var rep struct {
		PlanID    string `json:"plan_id"`
		Completed bool   `json:"completed"`
		Steps     []struct {
			Output string `json:"output"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || rep.PlanID != "inner" || !rep.Completed || rep.Steps[0].Output != "appended 6 bytes to notes.md" {
		t.Errorf("answer %s (%v)", r.stdout, err)
	}
	if diff := cmp.Diff([]capsuleStatus{{Up: true}, {Outcome: "completed"}}, r.status); diff != "" {
		t.Errorf("status (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"session_start", "plan_start", "plan_step_start", "plan_step", "plan_end", "session_end:ok"}, r.events(t)); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
	if b, _ := os.ReadFile(filepath.Join(r.session, NotesFile)); string(b) != "noted\n" {
		t.Errorf("notes.md %q", b)
	}

	// A step its manifest does not grant: the plan is refused, and the
	// child session records that it failed.
	r = runTestCapsule(t, t.Context(), manifest, "x", nil, "plan.json", `{"id": "inner", "steps": [{"id": "w", "tool": "write-file", "input": {"path": "x", "content": "y"}}]}`)
	if r.code != ExitRefused || len(r.status) != 2 || !strings.HasPrefix(r.status[1].Reason, "its entrypoint plan plan.json is refused: 1:47: tool \"write-file\" is not in the capsule's inventory") {
		t.Errorf("refused plan: exit %d, status %+v", r.code, r.status)
	}
	if diff := cmp.Diff([]string{"session_start", "session_end:failed"}, r.events(t)); diff != "" {
		t.Errorf("refused plan's trace (-want +got):\n%s", diff)
	}
}

// TestRunSpawnerEnded: Run under a lifeline that has ended writes
// spawner_ended and no session_end.
func TestRunSpawnerEnded(t *testing.T) {
	ended := make(chan struct{})
	close(ended)
	res, err := Run(t.Context(), Config{
		WorkDir: t.TempDir(), SpawnedBy: "p-1", DelegationID: "plan-1-x-1", SpawnerEnded: ended,
		Plan: []byte(`{"id": "p", "steps": [{"id": "n", "tool": "notes", "input": {"body": "hi"}}]}`),
	})
	if err != nil {
		t.Fatal(err)
	}
	ev := readTraceEvents(t, filepath.Join(res.Session.Dir, TraceFile))
	if ev[0] != "session_start" || ev[len(ev)-1] == "session_end" || !strings.Contains(strings.Join(ev, " "), "spawner_ended") {
		t.Errorf("trace %v", ev)
	}
	if s := res.Session.Info; *s.SpawnedBy != "p-1" || *s.DelegationID != "plan-1-x-1" {
		t.Errorf("session.json %+v", s)
	}
}
