package shell

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A protected step, started by the spawner, lives like any other: in its
// leaf, bounded, and leaving nothing behind.
func TestSpawnedStep(t *testing.T) {
	t.Parallel()
	s := protectedScope(t)
	protect := []string{t.TempDir()}
	r := sh(s, "", "sleep 1000 & echo $!; grep ^0:: /proc/self/cgroup; exit 4", protect...)
	if r.Err == nil || r.Err.Error() != "exit status 4" {
		t.Fatalf("got %+v", r)
	}
	// The step's cgroup namespace is rooted at the scope; its pid is one
	// of its PID namespace. That its leaf is gone says the background
	// sleep is.
	lines := strings.Split(strings.TrimSpace(string(r.Output)), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[1], "0::/step-") {
		t.Fatalf("output %q; want the pid and the step's leaf", r.Output)
	}
	if got := leaves(t, s); len(got) != 1 || !strings.HasPrefix(got[0], "spawner-") {
		t.Fatalf("leaves %q; want only the spawner's", got)
	}

	// The bound must leave the shell time to set its trap even on a
	// loaded machine: the step's end, not this bound, ends the wait.
	script := `trap 'echo got TERM' TERM; sleep 1000 & wait; sleep 1000 & wait`
	r = s.Run(context.Background(), Spec{Argv: []string{"sh", "-c", script}, Protect: protect, Timeout: 8 * time.Second, Grace: 2 * time.Second})
	if !r.TimedOut || r.Signal != syscall.SIGKILL || string(r.Output) != "got TERM\n" {
		t.Fatalf("bound: got %+v", r)
	}

	missing := s.Run(context.Background(), Spec{Argv: []string{"true"}, Dir: "/no/such/dir", Protect: protect})
	if missing.Err == nil || !strings.Contains(missing.Err.Error(), "no such file") {
		t.Fatalf("missing dir: %v", missing.Err)
	}
}

// A protected step sees the last setting of a variable its environment
// sets twice, as a step started directly does.
func TestSpawnedEnvDuplicates(t *testing.T) {
	s := protectedScope(t)
	for _, protect := range [][]string{nil, {t.TempDir()}} {
		r := s.Run(context.Background(), Spec{Argv: []string{"env"}, Env: []string{"A=1", "B=x", "A=2"}, Protect: protect})
		if r.Err != nil || string(r.Output) != "B=x\nA=2\n" {
			t.Errorf("protect %q: output %q, %v; want A=2 once", protect, r.Output, r.Err)
		}
	}
}

// Scope.Kill ends protected steps and their spawner at once.
func TestKillProtected(t *testing.T) {
	s := protectedScope(t)
	protect := []string{t.TempDir()}
	done := startBlocked(t, s, filepath.Join(t.TempDir(), "fifo"), "trap '' TERM; sleep 1000", protect...)
	if err := s.Kill(); err != nil {
		t.Fatal(err)
	}
	if r := <-done; !errors.Is(r.Err, errKilled) {
		t.Fatalf("got %+v; want killed", r)
	}
}

// A spawner that dies fails the steps it ran, which leave nothing behind,
// and the next protected step gets a new spawner.
func TestSpawnerDies(t *testing.T) {
	s := protectedScope(t)
	protect := []string{t.TempDir()}
	done := startBlocked(t, s, filepath.Join(t.TempDir(), "fifo"), "sleep 1000", protect...)
	spawners, _ := filepath.Glob(filepath.Join(s.Dir(), "spawner-*"))
	if len(spawners) != 1 {
		t.Fatalf("spawners %q; want one", spawners)
	}
	b, err := os.ReadFile(filepath.Join(spawners[0], "cgroup.procs"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("spawner's cgroup.procs %q: %v", b, err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.Err == nil || !strings.Contains(r.Err.Error(), "spawner of protected steps ended") {
		t.Fatalf("got %+v", r)
	}
	if r := sh(s, "", "echo again", protect...); r.Err != nil || string(r.Output) != "again\n" {
		t.Fatalf("after the spawner died: %q, %v", r.Output, r.Err)
	}
	for _, l := range leaves(t, s) {
		if strings.HasPrefix(l, "step-") {
			t.Fatalf("leaf %s left behind", l)
		}
	}
}

// Many steps at once, protected or not, each get their own output and
// status.
func TestParallelSteps(t *testing.T) {
	s := openTestScope(t)
	var protect []string
	if s.ProtectionOff() == "" {
		protect = []string{t.TempDir()}
	}
	const n = 40
	results := make(chan error, n)
	for i := range n {
		go func() {
			var p []string
			if i%2 == 0 {
				p = protect
			}
			r := sh(s, "", "echo "+strconv.Itoa(i)+"; exit "+strconv.Itoa(i%3), p...)
			want := "exit status " + strconv.Itoa(i%3)
			switch {
			case string(r.Output) != strconv.Itoa(i)+"\n":
				results <- errors.New("step " + strconv.Itoa(i) + " output " + string(r.Output))
			case i%3 == 0 && r.Err != nil, i%3 != 0 && (r.Err == nil || r.Err.Error() != want):
				results <- errors.New("step " + strconv.Itoa(i) + ": " + errString(r.Err))
			default:
				results <- nil
			}
		}()
	}
	for range n {
		if err := <-results; err != nil {
			t.Error(err)
		}
	}
	for _, l := range leaves(t, s) {
		if strings.HasPrefix(l, "step-") {
			t.Errorf("leaf %s left behind", l)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}
