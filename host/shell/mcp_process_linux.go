package shell

import (
	"os/exec"
	"syscall"

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
	if err := s.enter(); err != nil {
		return nil, err
	}
	defer s.runs.Done()
	l, err := s.newLeaf(kind)
	if err != nil {
		return nil, err
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, UseCgroupFD: true, CgroupFD: l.fd}
	err = cmd.Start()
	l.closeFD()
	if err != nil {
		removeCgroup(l.dir)
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
		killCgroup(ps.leaf)
		return
	}
	if ps.group {
		unix.Kill(-p.Pid(), unix.SIGKILL)
	}
}

// stop runs once the main process is reaped.
func (ps *processSys) stop(p *Process) error {
	if ps.leaf != "" {
		return removeCgroup(ps.leaf)
	}
	if ps.group {
		unix.Kill(-p.Pid(), unix.SIGKILL) // what it left in its group
	}
	return nil
}
