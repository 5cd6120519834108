package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// Protected steps in flight at the same time get spawners of their own,
// up to maxSpawners for a set of protected paths; each spawner is process
// 1 of a PID namespace of its own, and every step, whichever spawner
// started it, holds exactly the same privileges. A step started while
// every spawner has one in flight shares one.
func TestSpawnerPool(t *testing.T) {
	n := maxSpawners()
	if n < 2 {
		t.Skip("GOMAXPROCS is 1: one spawner")
	}
	s := protectedScope(t)
	protect := []string{t.TempDir()}
	dir := t.TempDir()
	spawners := func() int { return spawnersIn(t, s) }
	script := `grep -E '^(Cap|NoNewPrivs|Seccomp)' /proc/self/status; readlink /proc/self/ns/pid; : < `
	var dones []<-chan Result
	for i := range n + 1 {
		release := filepath.Join(dir, "release"+strconv.Itoa(i))
		if err := syscall.Mkfifo(release, 0o600); err != nil {
			t.Fatal(err)
		}
		dones = append(dones, startBlocked(t, s, filepath.Join(dir, "fifo"+strconv.Itoa(i)), script+release, protect...))
		if got, want := spawners(), min(i+1, n); got != want {
			t.Errorf("with %d steps in flight: %d spawners; want %d", i+1, got, want)
		}
		defer func() {
			if f, err := os.OpenFile(release, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				f.Close()
			}
		}()
	}
	var outs []string
	ns := map[string]bool{}
	for i, done := range dones {
		f, err := os.OpenFile(filepath.Join(dir, "release"+strconv.Itoa(i)), os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		r := <-done
		if r.Err != nil {
			t.Fatalf("step %d: %v: %s", i, r.Err, r.Output)
		}
		lines := strings.Split(strings.TrimSpace(string(r.Output)), "\n")
		last := lines[len(lines)-1]
		if !strings.HasPrefix(last, "pid:[") {
			t.Fatalf("step %d: output %q", i, r.Output)
		}
		ns[last] = true
		outs = append(outs, strings.Join(lines[:len(lines)-1], "\n"))
	}
	if len(ns) != n {
		t.Errorf("%d steps ran in %d PID namespaces; want %d", len(dones), len(ns), n)
	}
	for i, o := range outs {
		if !strings.Contains(o, "NoNewPrivs:\t1") || !strings.Contains(o, "Seccomp:\t2") || o != outs[0] {
			t.Errorf("step %d holds\n%s\nstep 0\n%s", i, o, outs[0])
		}
	}
}

// TestSpawnerPoolBurst: a spawner handed to a step that has not been
// spawned yet counts as busy, so steps that arrive together (while a
// spawner starts) get spawners of their own instead of all the same one.
func TestSpawnerPoolBurst(t *testing.T) {
	if maxSpawners() < 2 {
		t.Skip("GOMAXPROCS is 1: one spawner")
	}
	s := protectedScope(t)
	protect := []string{t.TempDir()}
	first, err := s.spawnerFor(protect)
	if err != nil {
		t.Fatal(err)
	}
	second, err := s.spawnerFor(protect)
	if err != nil {
		t.Fatal(err)
	}
	if first == second {
		t.Errorf("two steps handed out together got the same spawner")
	}
	first.unreserve()
	second.unreserve()
	if third, err := s.spawnerFor(protect); err != nil || (third != first && third != second) {
		t.Errorf("with both idle again, a step got %p (%v); want one of the two", third, err)
	} else {
		third.unreserve()
	}
}
