package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// cgroupOf runs a step that prints its cgroup, and returns that line.
func cgroupOf(t *testing.T, s *Scope, sp Spec) string {
	t.Helper()
	r := s.Run(context.Background(), sp)
	for l := range strings.SplitSeq(string(r.Output), "\n") {
		if strings.HasPrefix(l, "0::") {
			return l
		}
	}
	t.Fatalf("no cgroup line: %q, %v", r.Output, r.Err)
	return ""
}

// TestLeafReused: a step whose leaf was left empty hands it to the next
// step; a step that left a process behind, or that was signalled at its
// bound, does not: its leaf is removed and the next step gets a new one.
func TestLeafReused(t *testing.T) {
	s := openTestScope(t)
	const show = "grep ^0:: /proc/self/cgroup"
	first := cgroupOf(t, s, Spec{Argv: []string{"sh", "-c", show}})
	if again := cgroupOf(t, s, Spec{Argv: []string{"sh", "-c", show}}); again != first {
		t.Fatalf("the second step ran in %s, not in the first's leaf %s", again, first)
	}
	leaf := filepath.Join(s.Dir(), filepath.Base(first))
	if _, err := os.Stat(leaf); err != nil {
		t.Fatalf("the pooled leaf is gone: %v", err)
	}

	// A process left behind: the leaf is killed and removed, not pooled.
	left := cgroupOf(t, s, Spec{Argv: []string{"sh", "-c", show + "; sleep 1000 &"}})
	if left != first {
		t.Fatalf("the third step ran in %s, not in the pooled leaf %s", left, first)
	}
	if _, err := os.Stat(leaf); !os.IsNotExist(err) {
		t.Fatalf("the leaf a process was left in is still there: %v", err)
	}
	next := cgroupOf(t, s, Spec{Argv: []string{"sh", "-c", show}})
	if next == first {
		t.Fatalf("a step ran in the removed leaf %s", next)
	}

	// A step ended at its bound: its leaf is not reused either, though
	// nothing is left in it.
	bounded := cgroupOf(t, s, Spec{Argv: []string{"sh", "-c", show + "; exec sleep 1000"}, Timeout: 200 * time.Millisecond})
	if bounded != next {
		t.Fatalf("the bounded step ran in %s, not in the pooled leaf %s", bounded, next)
	}
	if after := cgroupOf(t, s, Spec{Argv: []string{"sh", "-c", show}}); after == bounded {
		t.Fatalf("a step ran in the leaf of a step killed at its bound, %s", after)
	}
	if got := leaves(t, s); len(got) != 0 {
		t.Fatalf("leaves left beside the pool: %q", got)
	}
}
