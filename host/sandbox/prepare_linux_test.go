package sandbox

import (
	"slices"
	"strings"
	"testing"
)

// resetProtection forgets what this process learnt of protection, as a
// planc just started does not know it; t's end forgets it again, for the
// next test to learn.
func resetProtection(t *testing.T) {
	reset := func() {
		protectMu.Lock()
		protectDone, protectHere = false, protectMode{}
		protectMu.Unlock()
	}
	reset()
	t.Cleanup(reset)
}

// spawnersIn counts the spawners in s: the processes of the scope's own
// directory, where only spawners live.
func spawnersIn(t *testing.T, s *Scope) int {
	t.Helper()
	return len(scopeProcs(t, s))
}

// TestPrepare: Prepare starts the scope's first spawner at plan start, and
// that start is how the process learns that protection is on: no probe
// runs; the first protected step then uses that spawner.
func TestPrepare(t *testing.T) {
	s := protectedScope(t)
	resetProtection(t)
	probes := probesRun.Load()
	protect := []string{t.TempDir()}
	s.Prepare(protect)
	if n := spawnersIn(t, s); n != 1 {
		t.Fatalf("%d spawners after Prepare; want 1", n)
	}
	if off := s.ProtectionOff(); off != "" {
		t.Fatalf("protection off after a spawner started: %s", off)
	}
	if r := sh(s, "", "echo ok", protect...); r.Err != nil || string(r.Output) != "ok\n" {
		t.Fatalf("protected step: %q, %v", r.Output, r.Err)
	}
	if n := spawnersIn(t, s); n != 1 {
		t.Errorf("%d spawners after one step; want the prepared one", n)
	}
	if got := probesRun.Load() - probes; got != 0 {
		t.Errorf("%d probes ran; want none", got)
	}
	// Once protection is known, Prepare of another scope starts its
	// spawner without asking again.
	s2 := openTestScope(t)
	s2.Prepare(protect)
	if n := spawnersIn(t, s2); n != 1 || probesRun.Load() != probes {
		t.Errorf("second scope: %d spawners, %d probes; want 1, 0", n, probesRun.Load()-probes)
	}
	// Nothing to protect: nothing starts.
	s3 := openTestScope(t)
	if len(Inherited()) == 0 {
		s3.Prepare(nil)
		if n := spawnersIn(t, s3); n != 0 {
			t.Errorf("Prepare(nil) started %d spawners", n)
		}
	}
}

// TestProtectionFromPrepare: when the first spawner does not start, the
// probe runs, once, and decides protection as before (here it is on: the
// probe uses the process's lock, not the scope's broken one); the scope
// keeps no spawner.
func TestProtectionFromPrepare(t *testing.T) {
	s := protectedScope(t)
	resetProtection(t)
	s.sys.lock = "bogus"
	probes := probesRun.Load()
	s.Prepare([]string{t.TempDir()})
	if got := probesRun.Load() - probes; got != 1 {
		t.Errorf("%d probes ran after a failed spawner; want 1", got)
	}
	if off := s.ProtectionOff(); off != "" {
		t.Errorf("protection off: %s", off)
	}
	if n := spawnersIn(t, s); n != 0 {
		t.Errorf("%d spawners left after a failed start", n)
	}
	if got := probesRun.Load() - probes; got != 1 {
		t.Errorf("%d probes ran in all; want 1", got)
	}
}

// TestSpawnerInScope: the spawner is cloned into the scope's own
// directory and stays there (a move into a leaf would be a migration,
// waiting for an RCU grace period): once Prepare returns, the spawner is
// the only process of the scope's own directory, no leaf was made for it,
// and its steps' cgroup namespace is rooted at the scope, each step in a
// leaf of its own.
func TestSpawnerInScope(t *testing.T) {
	s := protectedScope(t)
	protect := []string{t.TempDir()}
	s.Prepare(protect)
	s.sys.spawnMu.Lock()
	pool := s.sys.spawners[spawnersKey(cleanProtect(append(Inherited(), protect...)))]
	s.sys.spawnMu.Unlock()
	if len(pool) != 1 {
		t.Fatalf("%d spawners after Prepare; want 1", len(pool))
	}
	if got, want := scopeProcs(t, s), []int{pool[0].cmd.Process.Pid}; !slices.Equal(got, want) {
		t.Errorf("the scope's own directory holds %v; want the spawner, %v", got, want)
	}
	if got := leaves(t, s); len(got) != 0 {
		t.Errorf("leaves %q after Prepare; want none", got)
	}
	if r := sh(s, "", "grep ^0:: /proc/self/cgroup", protect...); r.Err != nil || !strings.HasPrefix(string(r.Output), "0::/step-") {
		t.Errorf("step's cgroup: %q, %v; want a leaf of the scope, seen from the scope", r.Output, r.Err)
	}
}
