package sandbox

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startBlocked runs `echo started > fifo; then` in s and returns once the
// step has written to fifo, with the channel its Result comes on.
func startBlocked(t *testing.T, s *Scope, fifo, then string, protect ...string) <-chan Result {
	t.Helper()
	return startBlockedCtx(t, context.Background(), s, fifo, then, protect...)
}

func startBlockedCtx(t *testing.T, ctx context.Context, s *Scope, fifo, then string, protect ...string) <-chan Result {
	t.Helper()
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan Result, 1)
	go func() {
		done <- s.Run(ctx, Spec{Argv: []string{"sh", "-c", "echo started > " + fifo + "; " + then}, Protect: protect})
	}()
	f, err := os.Open(fifo) // blocks until the step opens it to write
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if b, err := io.ReadAll(f); err != nil || string(b) != "started\n" {
		t.Fatalf("read %q, %v from the step", b, err)
	}
	return done
}

// A step's processes run in a leaf cgroup of their own inside the scope.
func TestStepInLeaf(t *testing.T) {
	s := openTestScope(t)
	r := sh(s, "", "cat /proc/self/cgroup; sh -c 'cat /proc/self/cgroup'")
	if r.Err != nil {
		t.Fatalf("%v: %s", r.Err, r.Output)
	}
	var lines []string
	for l := range strings.SplitSeq(string(r.Output), "\n") {
		if strings.HasPrefix(l, "0::") {
			lines = append(lines, l)
		}
	}
	want := "0::/" + filepath.Base(s.Dir()) + "/step-1"
	if len(lines) != 2 || !strings.HasSuffix(lines[0], want) || lines[1] != lines[0] {
		t.Fatalf("cgroup lines %q; want two ending %q", lines, want)
	}
	if got := leaves(t, s); len(got) != 0 {
		t.Fatalf("leaves left after the step: %q", got)
	}
}

// A step that backgrounds a process leaves nothing behind: the process is
// killed and the leaf removed when the main process exits.
func TestNothingLeftBehind(t *testing.T) {
	s := openTestScope(t)
	r := sh(s, "", "sleep 1000 & echo $!")
	if r.Err != nil {
		t.Fatalf("%v: %s", r.Err, r.Output)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(r.Output)))
	if err != nil {
		t.Fatalf("output %q: %v", r.Output, err)
	}
	if got := leaves(t, s); len(got) != 0 {
		t.Fatalf("leaves left after the step: %q", got)
	}
	// Dead: gone, or a zombie its new parent has yet to reap.
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) == 0 || f[0] != "Z" {
			t.Fatalf("background sleep %d is still alive: %s", pid, b)
		}
	}
}

// At its bound every process of the step gets SIGTERM, and SIGKILL after
// the grace: the shell traps TERM and goes on, so SIGKILL ends it.
func TestBoundTermThenKill(t *testing.T) {
	t.Parallel()
	s := openTestScope(t)
	script := `trap 'echo got TERM' TERM; echo ready; sleep 1000 & wait; echo after; sleep 1000 & wait; echo never`
	// Bound and grace leave the shell time to set its trap and run it
	// even on a loaded machine; the step's end ends the wait.
	r := s.Run(context.Background(), Spec{Argv: []string{"sh", "-c", script}, Timeout: 8 * time.Second, Grace: 2 * time.Second})
	if !r.TimedOut || r.Signal != syscall.SIGKILL {
		t.Fatalf("got %+v; want timed out and SIGKILL", r)
	}
	if got := string(r.Output); got != "ready\ngot TERM\nafter\n" {
		t.Fatalf("output %q; want the trap's line", got)
	}
	if r.Err == nil || r.Err.Error() != "timed out after 8s" {
		t.Fatalf("error %v; want timed out after 8s", r.Err)
	}
	if got := leaves(t, s); len(got) != 0 {
		t.Fatalf("leaves left after the step: %q", got)
	}
}

// A step that does not trap TERM ends with it, well before the grace.
func TestBoundTerm(t *testing.T) {
	s := openTestScope(t)
	r := s.Run(context.Background(), Spec{Argv: []string{"sleep", "1000"}, Timeout: 20 * time.Millisecond, Grace: time.Hour})
	if !r.TimedOut || r.Signal != syscall.SIGTERM || r.Err.Error() != "timed out after 20ms" {
		t.Fatalf("got %+v; want timed out by SIGTERM", r)
	}
}

// Standard output and error are merged in the order they were written.
func TestMergedOrder(t *testing.T) {
	s := openTestScope(t)
	r := sh(s, "", "for i in 1 2 3 4 5; do echo out$i; echo err$i >&2; done; printf tail >&2")
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	want := "out1\nerr1\nout2\nerr2\nout3\nerr3\nout4\nerr4\nout5\nerr5\ntail"
	if string(r.Output) != want {
		t.Fatalf("output %q; want %q", r.Output, want)
	}
}

func TestExitStatus(t *testing.T) {
	s := openTestScope(t)
	r := sh(s, "", "echo hi; exit 3")
	if r.Err == nil || r.Err.Error() != "exit status 3" || r.ExitCode != 3 || string(r.Output) != "hi\n" {
		t.Fatalf("got %+v, %v; want exit status 3 and its output", r, r.Err)
	}
	r = sh(s, "", "kill -USR1 $$")
	if r.Err == nil || r.Err.Error() != "killed by signal SIGUSR1" || r.ExitCode != -1 {
		t.Fatalf("got %+v; want killed by signal SIGUSR1", r)
	}
}

// The first word is resolved on PATH once, that file runs, and argv[0] is
// still the plan's word; standard input is empty.
func TestResolveAndStdin(t *testing.T) {
	s := openTestScope(t)
	want, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	r := s.Run(context.Background(), Spec{Argv: []string{"sh", "-c", `echo "$0"; cat; echo end`}})
	if r.Err != nil || string(r.Output) != "sh\nend\n" {
		t.Fatalf("got %q, %v", r.Output, r.Err)
	}
	if r.Path != want {
		t.Fatalf("ran %q; want %q", r.Path, want)
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "run.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\npwd\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	r = s.Run(context.Background(), Spec{Argv: []string{"./run.sh"}, Dir: dir})
	if r.Err != nil || string(r.Output) != dir+"\n" || r.Path != script {
		t.Fatalf("./run.sh in its dir: %q, %v, %q", r.Output, r.Err, r.Path)
	}
}

func TestMissingBinary(t *testing.T) {
	s := openTestScope(t)
	for _, c := range []struct{ word, want string }{
		{"planc-no-such-binary", `cannot run "planc-no-such-binary": executable file not found in $PATH`},
		{"./nope", `cannot run "./nope": no such file or directory`},
		{"/etc/passwd", `cannot run "/etc/passwd": not an executable file`},
	} {
		r := s.Run(context.Background(), Spec{Argv: []string{c.word}, Dir: t.TempDir()})
		if r.Err == nil || r.Err.Error() != c.want || r.Path != "" {
			t.Errorf("%s: got %v; want %s", c.word, r.Err, c.want)
		}
	}
	r := s.Run(context.Background(), Spec{Argv: []string{"true"}, Dir: "/no/such/dir"})
	if r.Err == nil || !strings.Contains(r.Err.Error(), "no such file") {
		t.Errorf("missing dir: got %v", r.Err)
	}
	if got := leaves(t, s); len(got) != 0 {
		t.Fatalf("leaves left after failed starts: %q", got)
	}
}

// Scope.Kill ends every step at once, and the next Run fails.
func TestKill(t *testing.T) {
	s := openTestScope(t)
	done := startBlocked(t, s, filepath.Join(t.TempDir(), "fifo"), "trap '' TERM; sleep 1000")
	if err := s.Kill(); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if !errors.Is(r.Err, errKilled) || r.Signal != syscall.SIGKILL {
		t.Fatalf("got %+v; want killed", r)
	}
	if r := sh(s, "", "true"); !errors.Is(r.Err, errKilled) {
		t.Fatalf("Run after Kill: %v", r.Err)
	}
}

// Cancelling Run's context ends the step as its bound does.
func TestContextCancel(t *testing.T) {
	s := openTestScope(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := startBlockedCtx(t, ctx, s, filepath.Join(t.TempDir(), "fifo"), "sleep 1000")
	cancel()
	r := <-done
	if r.TimedOut || r.Signal != syscall.SIGTERM || r.Err == nil || r.Err.Error() != "canceled: context canceled" {
		t.Fatalf("got %+v; want canceled by SIGTERM", r)
	}
}

// A step gets standard input, output and error and no other descriptor,
// and runs in its leaf, whether it is protected or not (a protected one
// sees the cgroups from its scope down).
func TestStepDescriptors(t *testing.T) {
	s := openTestScope(t)
	var protect []string
	if s.ProtectionOff() == "" {
		protect = []string{t.TempDir()}
	}
	for _, p := range [][]string{nil, protect} {
		r := sh(s, "", `ls /proc/$$/fd; readlink /proc/$$/fd/0; grep ^0:: /proc/$$/cgroup`, p...)
		want := "0\n1\n2\n/dev/null\n0::/" + filepath.Base(s.Dir()) + "/step-"
		if len(p) > 0 {
			want = "0\n1\n2\n/dev/null\n0::/step-"
		}
		if r.Err != nil || !strings.HasPrefix(string(r.Output), want) {
			t.Errorf("protect %q: %q, %v; want %q…", p, r.Output, r.Err, want)
		}
	}
}

// A step that makes cgroups beneath its leaf (a nested planc run) leaves
// none of them, nor their processes.
func TestNestedCgroups(t *testing.T) {
	s := openTestScope(t)
	nested := filepath.Join(s.Dir(), "step-1", "nested")
	r := sh(s, "", `mkdir `+nested+` `+nested+`/deeper && sh -c 'echo $$ > `+nested+`/deeper/cgroup.procs && exec sleep 1000' & wait_for=`+nested+`/deeper/cgroup.events; until grep -q "populated 1" $wait_for; do :; done`)
	if r.Err != nil {
		t.Fatalf("%v: %s", r.Err, r.Output)
	}
	if got := leaves(t, s); len(got) != 0 {
		t.Fatalf("leaves left after the step: %q", got)
	}
}
