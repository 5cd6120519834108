package sandbox

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestSpawnerPool: a scope starts another spawner only when every one it
// has is busy starting a step (a request waits on its socket, unread), up
// to maxSpawners for a set of protected paths, and in the background: the
// step that found them busy goes to one of them. A step in flight does not
// make a spawner busy. Each spawner is process 1 of a PID namespace of its
// own, and every step, whichever spawner started it, holds exactly the
// same privileges. The test makes spawners busy by stopping them.
func TestSpawnerPool(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(8)) // four spawners at most, on any machine
	n := maxSpawners()
	s := protectedScope(t)
	protect := []string{t.TempDir()}
	dir := t.TempDir()
	script := `grep -E '^(Cap|NoNewPrivs|Seccomp)' /proc/self/status; readlink /proc/self/ns/pid`
	spawned := make(chan struct{}, 1)
	s.sys.spawned = spawned // each step's request on a socket: one event, taken at once
	var results []Result
	var pending []<-chan Result // steps started, not waited for
	// run starts a step and returns once its request is on a spawner's
	// socket.
	run := func() {
		t.Helper()
		done := make(chan Result, 1)
		go func() { done <- sh(s, "", script, protect...) }()
		select {
		case <-spawned:
		case r := <-done:
			t.Fatalf("step ended before its request was sent: %v: %s", r.Err, r.Output)
		}
		pending = append(pending, done)
	}
	wait := func() {
		for _, done := range pending {
			results = append(results, <-done)
		}
		pending = nil
	}
	runNow := func() { // a step run to its end
		t.Helper()
		r := sh(s, "", script, protect...)
		if r.Err != nil {
			t.Fatalf("%v: %s", r.Err, r.Output)
		}
		<-spawned
		results = append(results, r)
	}
	pool := func() []*spawner {
		s.sys.spawnMu.Lock()
		defer s.sys.spawnMu.Unlock()
		var all []*spawner
		for _, p := range s.sys.spawners {
			all = append(all, p...)
		}
		return all
	}
	busy := func() int {
		n := 0
		for _, spw := range pool() {
			if spw.busy() {
				n++
			}
		}
		return n
	}
	// stop stops every spawner and waits until each has stopped.
	stop := func() {
		t.Helper()
		for _, spw := range pool() {
			pid := spw.cmd.Process.Pid
			if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
				t.Fatal(err)
			}
			var info unix.Siginfo
			if err := unix.Waitid(unix.P_PID, pid, &info, unix.WSTOPPED, nil); err != nil {
				t.Fatalf("waiting for spawner %d to stop: %v", pid, err)
			}
		}
	}
	cont := func() {
		for _, spw := range pool() {
			syscall.Kill(spw.cmd.Process.Pid, syscall.SIGCONT)
		}
	}
	defer cont()

	// A step in flight, blocked, on the first spawner: the next step
	// finds that spawner idle and takes it.
	release := filepath.Join(dir, "release")
	if err := syscall.Mkfifo(release, 0o600); err != nil {
		t.Fatal(err)
	}
	blocked := startBlocked(t, s, filepath.Join(dir, "fifo"), script+"; : < "+release, protect...)
	<-spawned
	runNow()
	if got := len(pool()); got != 1 {
		t.Fatalf("%d spawners with one step in flight and one more run; want 1", got)
	}
	for have := 1; have <= n; have++ {
		// Every spawner stopped, and made busy by a step each: a step
		// goes to one that is not busy yet.
		stop()
		for i := range have {
			run()
			if got := busy(); got != i+1 {
				t.Fatalf("with %d spawners stopped and %d steps sent: %d busy; want %d", have, i+1, got, i+1)
			}
		}
		run() // finds every one busy
		s.sys.grows.Wait()
		if got, want := len(pool()), min(have+1, n); got != want {
			t.Fatalf("%d spawners after %d were all busy; want %d (maxSpawners %d)", got, have, want, n)
		}
		cont()
		wait()
		if have < n {
			runNow() // to the new one, which has no step in flight
		}
	}
	f, err := os.OpenFile(release, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	results = append(results, <-blocked)
	ns := map[string]bool{}
	var first string
	for i, r := range results {
		if r.Err != nil {
			t.Fatalf("step %d: %v: %s", i, r.Err, r.Output)
		}
		lines := strings.Split(strings.TrimSpace(string(r.Output)), "\n")
		last := lines[len(lines)-1]
		if !strings.HasPrefix(last, "pid:[") {
			t.Fatalf("step %d: output %q", i, r.Output)
		}
		ns[last] = true
		privs := strings.Join(lines[:len(lines)-1], "\n")
		if i == 0 {
			first = privs
		}
		if !strings.Contains(privs, "NoNewPrivs:\t1") || !strings.Contains(privs, "Seccomp:\t2") || privs != first {
			t.Errorf("step %d holds\n%s\nstep 0\n%s", i, privs, first)
		}
	}
	if len(ns) != n {
		t.Errorf("%d steps ran in %d PID namespaces; want %d", len(results), len(ns), n)
	}
}
