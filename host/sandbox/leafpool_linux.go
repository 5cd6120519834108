package sandbox

// The pool of step leaves: a step's leaf cgroup is made (mkdir) and opened
// for CLONE_INTO_CGROUP before it starts, and removed (rmdir) after; for
// plans of many short steps that was a good part of what each cost. A leaf
// whose step ended with nothing left in it (its cgroup.events says
// "populated 0") goes back to its scope instead, still open, and the next
// step starts in it. A leaf whose step was signalled or killed (its bound,
// a cancel, Scope.Kill) is never reused, nor one with a process left in
// it: those are removed as before, which kills what is left. Scope.Close
// removes the pooled leaves with every other.

import (
	"bytes"

	"golang.org/x/sys/unix"
)

// freeLeaf is a leaf in the pool: its directory, open, and its
// cgroup.events, open.
type freeLeaf struct {
	dir        string
	fd, events int
}

// maxFreeLeaves bounds the leaves a scope keeps for reuse: as many as
// steps usually run at once.
const maxFreeLeaves = 64

// stepLeaf returns a leaf for a step: one from the pool, else a new one.
func (s *Scope) stepLeaf() (*leaf, error) {
	s.mu.Lock()
	if n := len(s.sys.free); n > 0 {
		f := s.sys.free[n-1]
		s.sys.free = s.sys.free[:n-1]
		s.mu.Unlock()
		return &leaf{dir: f.dir, fd: f.fd, events: f.events, pool: s}, nil
	}
	s.mu.Unlock()
	l, err := s.newLeaf("step")
	if err != nil {
		return nil, err
	}
	if ev, err := unix.Openat(l.fd, "cgroup.events", unix.O_RDONLY|unix.O_CLOEXEC, 0); err == nil {
		l.events, l.pool = ev, s // else never reused
	}
	return l, nil
}

// reuseLeaf puts l back in its scope's pool when it can be reused: its
// step was neither signalled nor killed, nothing is left in it, and the
// scope still runs steps. It reports whether it did.
func (s *Scope) reuseLeaf(l *leaf) bool {
	if l.killed.Load() || !emptyLeaf(l.events) {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.killed || s.closed || len(s.sys.free) >= maxFreeLeaves {
		return false
	}
	s.sys.free = append(s.sys.free, freeLeaf{dir: l.dir, fd: l.fd, events: l.events})
	// l is done with: a later step gets a leaf of its own on them.
	l.pool, l.fd, l.events = nil, -1, -1
	return true
}

// emptyLeaf reports whether the cgroup.events open as fd says that no
// process is left in the leaf.
func emptyLeaf(fd int) bool {
	var buf [128]byte
	n, err := unix.Pread(fd, buf[:], 0)
	return err == nil && bytes.Contains(buf[:n], []byte("populated 0\n"))
}

// dropFreeLeaves closes the pooled leaves' descriptors and empties the
// pool; Close removes their cgroups with the others'.
func (s *Scope) dropFreeLeaves() {
	s.mu.Lock()
	free := s.sys.free
	s.sys.free = nil
	s.mu.Unlock()
	for _, f := range free {
		unix.Close(f.fd)
		unix.Close(f.events)
	}
}
