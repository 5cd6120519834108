package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/planc/planc/host/sandbox/cgroups"
)

func TestCleanProtect(t *testing.T) {
	got := cleanProtect([]string{"/a/c/", "/a b", "/a", "/a/c/d", "", "/b/../e", "/a"})
	want := []string{"/a", "/a b", "/e"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestScopeRefusal(t *testing.T) {
	got := ScopeRefusal(errors.New("cannot write /x/cgroup.procs: permission denied"))
	want := "E-RUN-012: no delegated cgroup v2 scope: cannot write /x/cgroup.procs: permission denied"
	if got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// The scope is found on this host (hybrid: cgroup2 at
// /sys/fs/cgroup/unified) and created in this process's own cgroup; Close
// removes it, leaves and all.
func TestOpenScopeHere(t *testing.T) {
	s := openTestScope(t)
	own, err := cgroups.OwnDir()
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(s.Dir()) != own {
		t.Fatalf("scope %s is not a child of this process's cgroup %s", s.Dir(), own)
	}
	t.Logf("scope %s", s.Dir())
	for _, f := range []string{"cgroup.procs", "cgroup.kill", "cgroup.events"} {
		if _, err := os.Stat(filepath.Join(s.Dir(), f)); err != nil {
			t.Errorf("scope lacks %s: %v", f, err)
		}
	}
	if _, err := OpenScope(filepath.Base(s.Dir())); err == nil || !strings.Contains(err.Error(), "file exists") {
		t.Errorf("opening the same scope twice: %v; want file exists", err)
	}
	if _, err := OpenScope("a/b"); err == nil {
		t.Errorf("OpenScope(a/b) succeeded")
	}
	if r := sh(s, "", "true"); r.Err != nil {
		t.Fatal(r.Err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.Dir()); !os.IsNotExist(err) {
		t.Fatalf("scope still there after Close: %v", err)
	}
	if r := sh(s, "", "true"); r.Err == nil || !strings.Contains(r.Err.Error(), "closed") {
		t.Fatalf("Run after Close: %v", r.Err)
	}
}

// Close ends what is still running and removes its leaf too.
func TestCloseEndsRunning(t *testing.T) {
	s := openTestScope(t)
	fifo := filepath.Join(t.TempDir(), "fifo")
	done := startBlocked(t, s, fifo, "sleep 1000")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.Signal != syscall.SIGKILL {
		t.Fatalf("step ended with %+v; want SIGKILL", r)
	}
	if _, err := os.Stat(s.Dir()); !os.IsNotExist(err) {
		t.Fatalf("scope still there after Close: %v", err)
	}
}
