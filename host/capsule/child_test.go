package capsule

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/host/sandbox"
	"github.com/planc/planc/host/session"
	"github.com/planc/planc/internal/sessionfmt"
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
	sess := filepath.Join(dir, "parent", sessionfmt.DelegationsDir, "plan-1-w-1")
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
	return testkit.Events(testkit.TraceLines(t, filepath.Join(r.session, sessionfmt.TraceFile)))
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
	objs := testkit.TraceLines(t, filepath.Join(r.session, sessionfmt.TraceFile))
	if o := objs[0]; o["capsule"] != "local/w" || o["version"] != "1.0.0" || o["spawned_by"] != "parent-1" || o["delegation_id"] != "plan-1-w-1" {
		t.Errorf("session_start %v", o)
	}
	s, err := session.Open(r.session, sessionfmt.SessionInfo{}) // reads the session.json there
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
// group; it winds down and the session ends canceled. The cancel comes
// once the command has set its trap (its marker file).
func TestRunChildCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	marker := filepath.Join(t.TempDir(), "started")
	go func() {
		defer cancel()
		if !waitFile(marker) {
			t.Errorf("the command never made %s", marker)
		}
	}()
	r := runTestChild(t, ctx, `{"name": "local/w", "entrypoint": {"command": ["sh", "-c", "trap 'echo bye; exit 0' TERM; echo started; : > '`+marker+`'; sleep 30 & wait"]}}`, "x", nil)
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
// outcome. The lifeline ends once the command has set its trap (its
// marker file).
func TestRunChildParentEnded(t *testing.T) {
	t.Setenv(EnvGrace, "200ms")
	lr, lw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer lr.Close()
	marker := filepath.Join(t.TempDir(), "started")
	go func() {
		defer lw.Close()
		if !waitFile(marker) {
			t.Errorf("the command never made %s", marker)
		}
	}()
	start := time.Now()
	r := runTestChild(t, t.Context(), `{"name": "local/w", "entrypoint": {"command": ["sh", "-c", "trap '' TERM; echo started; : > '`+marker+`'; exec sleep 300"]}}`, "x", lr)
	if r.code != session.ExitCanceled || r.stdout != "started\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	// Not the sleep's own end: the SIGKILL ended it.
	if d := time.Since(start); d > 150*time.Second {
		t.Errorf("took %v", d)
	}
	if diff := cmp.Diff([]status{{Up: true}}, r.status); diff != "" {
		t.Errorf("status (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"session_start", "spawner_ended"}, r.events(t)); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
}

// waitFile waits (testkit.Patience) for the file at path to exist, and
// reports whether it does.
func waitFile(path string) bool {
	return testkit.Within(0, func() bool { _, err := os.Stat(path); return err == nil })
}

// TestRunChildCanceledWhileStarting: a cancel that lands while the
// command's shim is still setting it up (the shim has locked itself down,
// the command does not run yet) is not lost: a SIGTERM then would reach
// only the shim, which drops it, so the command gets it once it runs. The
// command sleeps for minutes; without the SIGTERM it would not end.
func TestRunChildCanceledWhileStarting(t *testing.T) {
	ct, err := sandbox.Contain(exec.Command("true"), []string{t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ct.Started()
	if ct.Off != "" {
		t.Skipf("a command runs without a shim here: %s", ct.Off)
	}
	var inWindow atomic.Int32
	for i := range 5 {
		marker := "sleep 301." + strconv.Itoa(i)
		ctx, cancel := context.WithCancel(t.Context())
		returned := make(chan struct{})
		go func() {
			defer cancel()
			// Polled every millisecond: the window between the shim's
			// lock-down and its command is short.
			if !testkit.WithinEvery(0, time.Millisecond, func() bool {
				ok, early := shimLockedDown(marker)
				if ok && early {
					inWindow.Add(1)
				}
				return ok
			}) {
				t.Errorf("no shim for %q started", marker)
				return
			}
			cancel()
			select {
			case <-returned:
			case <-time.After(time.Minute):
				t.Errorf("%q: the cancel was lost", marker)
				for _, p := range testkit.Running(marker) {
					if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p))); err == nil {
						syscall.Kill(pid, syscall.SIGKILL)
					}
				}
			}
		}()
		r := runTestChild(t, ctx, `{"name": "local/w", "entrypoint": {"command": ["sh", "-c", "trap 'echo bye; exit 0' TERM; echo started; `+marker+` & wait"]}}`, "x", nil)
		close(returned)
		// The SIGTERM came before or after sh set its trap.
		if r.code != session.ExitCanceled || (r.stdout != "" && r.stdout != "started\nbye\n") {
			t.Fatalf("%q: exit %d, stdout %q, stderr %q", marker, r.code, r.stdout, r.stderr)
		}
		if len(r.status) != 2 || r.status[1].Outcome != "canceled" {
			t.Errorf("%q: status %+v", marker, r.status)
		}
		if diff := cmp.Diff([]string{"session_start", "session_end:canceled"}, r.events(t)); diff != "" {
			t.Errorf("%q: trace (-want +got):\n%s", marker, diff)
		}
	}
	t.Logf("%d of 5 cancels landed between the shim's lock-down and its command", inWindow.Load())
}

// shimLockedDown reports whether the shim whose command line holds marker
// has locked itself down (no_new_privs on its locked thread, its last step
// before it starts the command) or its command runs, and whether the command did not run yet:
// the shim's command line holds its command's, so one process matching
// marker is the shim alone.
func shimLockedDown(marker string) (ok, early bool) {
	procs := testkit.Running(marker)
	switch len(procs) {
	case 0:
		return false, false
	case 1:
		// no_new_privs is the locking thread's.
		tasks, _ := filepath.Glob(filepath.Join(filepath.Dir(procs[0]), "task", "*", "status"))
		for _, st := range tasks {
			if b, _ := os.ReadFile(st); bytes.Contains(b, []byte("NoNewPrivs:\t1")) {
				return true, true
			}
		}
		return false, false
	}
	return true, false
}
