package sandbox

import (
	"os/exec"
	"syscall"

	"github.com/planc/planc/host/sandbox/cgroups"
	"github.com/planc/planc/host/sandbox/shim"
	"golang.org/x/sys/unix"
)

// processSys is the Linux part of a Process: its leaf cgroup, or its
// process group.
type processSys struct {
	leaf  string // the leaf cgroup's directory (Scope.StartProcess)
	group bool   // in a process group of its own (StartProcess)
}

// StartProcess starts cmd inside the scope, directly in a new leaf cgroup
// of its own named kind-N (clone3 with CLONE_INTO_CGROUP), in a session of
// its own so that no terminal signal reaches it. cmd must not have been
// started; its SysProcAttr is replaced. Give it *os.File standard streams
// (see the package-level StartProcess). It fails once the scope is killed
// or closed; a Kill or Close that comes while it starts ends it.
func (s *Scope) StartProcess(cmd *exec.Cmd, kind string) (*Process, error) {
	return s.startInLeaf(cmd, kind, func(l *leaf) {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, UseCgroupFD: true, CgroupFD: l.fd}
	})
}

// startInLeaf starts cmd in a new leaf cgroup named kind-N, once set
// has made it ready to start there.
func (s *Scope) startInLeaf(cmd *exec.Cmd, kind string, set func(l *leaf)) (*Process, error) {
	if err := s.enter(); err != nil {
		return nil, err
	}
	defer s.runs.Done()
	l, err := s.newLeaf(kind)
	if err != nil {
		return nil, err
	}
	set(l)
	err = cmd.Start()
	l.closeFD()
	if err != nil {
		cgroups.Remove(l.dir)
		return nil, err
	}
	p := newProcess(cmd)
	p.sys.leaf = l.dir
	if s.ended() != nil {
		p.Kill() // Kill or Close may have swept the scope before it started
	}
	return p, nil
}

func (ps *processSys) kill(p *Process) {
	if ps.leaf != "" {
		cgroups.Kill(ps.leaf)
		return
	}
	if ps.group {
		unix.Kill(-p.Pid(), unix.SIGKILL)
	}
}

// stop runs once the main process is reaped.
func (ps *processSys) stop(p *Process) error {
	if ps.leaf != "" {
		return cgroups.Remove(ps.leaf)
	}
	if ps.group {
		unix.Kill(-p.Pid(), unix.SIGKILL) // what it left in its group
	}
	return nil
}

// StartServer starts cmd as StartProcess does, for a process that planc
// trusts but whose files a step may have changed since the plan started:
// an MCP server. In a sub-capsule, whose servers start after its
// parent's steps have run, it runs under a shim of its own, like a step,
// with the paths the capsule that spawned this one protects
// (PLANC_PROTECTED) held read-only: a step that rewrote the server's
// script gets no further than a step. Anywhere else, or without the
// kernel's protection, it is StartProcess.
func (s *Scope) StartServer(cmd *exec.Cmd, kind string) (*Process, error) {
	protect := cleanProtect(inherited())
	// The same checks as a step's shim (Run): a protected path that is
	// not absolute is refused, before anything starts.
	if err := (shim.Config{RO: protect, Cgroup: s.sys.dir, File: cmd.Path}).Check(); err != nil {
		return nil, err
	}
	m := s.mode()
	if len(protect) == 0 || m.lock == "" {
		return s.StartProcess(cmd, kind)
	}
	sc := shim.Config{Lock: m.lock, RO: protect}
	var werr error
	p, err := s.startInLeaf(cmd, kind, func(l *leaf) {
		sc.Cgroup = l.dir
		werr = sc.Wrap(cmd, s.Shim)
		cmd.SysProcAttr = m.attr(l.fd)
	})
	if werr != nil {
		return nil, werr
	}
	return p, err
}
