package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/planc/planc/host/sandbox/cgroups"
)

// testPrefix names every scope the tests open, so TestMain can tell that
// none is left.
var testPrefix = "planc-test-" + strconv.Itoa(os.Getpid()) + "-"

// TestMain runs the shim when the runner re-executes the test binary as
// `/proc/self/exe __shim …` (the tests' planc), the scope's owner and
// stand-in sub-capsule of guard_linux_test.go, and otherwise runs the
// tests and fails when any scope they opened is still in the cgroup tree.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == ShimCommand {
		os.Exit(ShimMain(os.Args[2:]))
	}
	if len(os.Args) == 6 && os.Args[1] == ownerCommand {
		os.Exit(ownerMain(os.Args[2:]))
	}
	if len(os.Args) == 5 && os.Args[1] == CapsuleCommand {
		os.Exit(capsuleMain(os.Args[2:]))
	}
	removeStale()
	code := m.Run()
	if dir, err := cgroups.OwnDir(); err == nil {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), testPrefix) || strings.HasPrefix(e.Name(), probePrefix()) {
				fmt.Fprintf(os.Stderr, "cgroup left behind: %s\n", filepath.Join(dir, e.Name()))
				code = 1
			}
		}
	}
	os.Exit(code)
}

var scopeSeq atomic.Int64

// openTestScope opens a scope for t, or skips t with the reason there is
// none; the scope is closed, and checked gone, when t ends.
func openTestScope(t testing.TB) *Scope {
	t.Helper()
	if err := Probe(); err != nil {
		t.Skipf("no delegated cgroup v2 scope on this machine: %v", err)
	}
	s, err := OpenScope(testPrefix + strconv.FormatInt(scopeSeq.Add(1), 10))
	if err != nil {
		t.Fatalf("OpenScope: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if _, err := os.Stat(s.Dir()); !os.IsNotExist(err) {
			t.Errorf("scope %s still there after Close (%v)", s.Dir(), err)
		}
	})
	return s
}

// protectedScope is openTestScope for tests of Spec.Protect: it skips t
// when the kernel cannot enforce it here.
func protectedScope(t testing.TB) *Scope {
	t.Helper()
	s := openTestScope(t)
	if off := s.ProtectionOff(); off != "" {
		t.Skipf("protection unavailable here: %s", off)
	}
	return s
}

// sh runs script with sh -c in dir.
func sh(s *Scope, dir, script string, protect ...string) Result {
	return s.Run(context.Background(), Spec{Argv: []string{"sh", "-c", script}, Dir: dir, Protect: protect})
}

// scopeProcs returns the processes of the scope's own directory (the
// spawners), sorted.
func scopeProcs(t *testing.T, s *Scope) []int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(s.Dir(), "cgroup.procs"))
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("the scope's cgroup.procs %q: %v", b, err)
		}
		pids = append(pids, pid)
	}
	slices.Sort(pids)
	return pids
}

// leaves returns the leaf cgroups left in s, but for the empty ones its
// pool keeps for reuse (one of those that holds a process fails t).
func leaves(t *testing.T, s *Scope) []string {
	t.Helper()
	ents, err := os.ReadDir(s.Dir())
	if err != nil {
		t.Fatal(err)
	}
	pooled := map[string]bool{}
	s.mu.Lock()
	for _, f := range s.sys.free {
		pooled[f.dir] = true
		// A leaf kept for reuse holds nothing.
		if !emptyLeaf(f.events) {
			t.Errorf("the pooled leaf %s holds a process", f.dir)
		}
	}
	s.mu.Unlock()
	var out []string
	for _, e := range ents {
		if e.IsDir() && !pooled[filepath.Join(s.Dir(), e.Name())] {
			out = append(out, e.Name())
		}
	}
	return out
}

// removeStale removes the scopes left by test processes that were killed
// before they could close them, so that one such run does not fail every
// later one.
func removeStale() {
	dir, err := cgroups.OwnDir()
	if err != nil {
		return
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), "planc-test-")
		pid, _, _ := strings.Cut(rest, "-")
		if _, err := os.Stat("/proc/" + pid); !ok || err == nil {
			continue
		}
		scope := filepath.Join(dir, e.Name())
		cgroups.Kill(scope)
		leaves, _ := os.ReadDir(scope)
		for _, l := range leaves {
			if l.IsDir() {
				cgroups.Remove(filepath.Join(scope, l.Name()))
			}
		}
		if err := cgroups.Remove(scope); err != nil {
			fmt.Fprintf(os.Stderr, "removing a stale scope: %v\n", err)
		}
	}
}
