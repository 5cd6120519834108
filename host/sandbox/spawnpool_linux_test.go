package sandbox

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
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
	var results []Result
	var pending []<-chan Result // steps started, not waited for
	run := func() {
		done := make(chan Result, 1)
		go func() { done <- sh(s, "", script, protect...) }()
		pending = append(pending, done)
	}
	wait := func() {
		for _, done := range pending {
			results = append(results, <-done)
		}
		pending = nil
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
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("waiting for %s", what)
			}
		}
	}
	signal := func(sig syscall.Signal) {
		for _, spw := range pool() {
			spw.cmd.Process.Signal(sig)
		}
	}
	defer signal(syscall.SIGCONT)

	// A step in flight, blocked, on the first spawner: the next step
	// finds that spawner idle and takes it.
	release := filepath.Join(dir, "release")
	if err := syscall.Mkfifo(release, 0o600); err != nil {
		t.Fatal(err)
	}
	blocked := startBlocked(t, s, filepath.Join(dir, "fifo"), script+"; : < "+release, protect...)
	results = append(results, sh(s, "", script, protect...))
	if got := len(pool()); got != 1 {
		t.Fatalf("%d spawners with one step in flight and one more run; want 1", got)
	}
	for have := 1; have <= n; have++ {
		// Every spawner stopped, and made busy by a step each.
		signal(syscall.SIGSTOP)
		for i := range pool() {
			run() // to one that is not busy yet
			waitFor(strconv.Itoa(i+1)+" spawners busy", func() bool {
				busy := 0
				for _, spw := range pool() {
					if spw.busy() {
						busy++
					}
				}
				return busy == i+1
			})
		}
		run() // finds every one busy
		if have < n {
			waitFor(strconv.Itoa(have+1)+" spawners", func() bool { return len(pool()) == have+1 })
		} else {
			s.sys.grows.Wait()
			if got := len(pool()); got != n {
				t.Fatalf("%d spawners; want at most maxSpawners, %d", got, n)
			}
		}
		signal(syscall.SIGCONT)
		wait()
		if have < n {
			// To the new one, which has no step in flight.
			results = append(results, sh(s, "", script, protect...))
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
