//go:build !linux && !windows

package sandbox

import (
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// processSys is the part of a Process that is not Linux's: its process
// group, and the scope that tracks it.
type processSys struct {
	group bool    // in a process group of its own
	g     *pgroup // the scope's record of it, for Scope.Kill and Close
}

// StartProcess starts cmd in a session and process group of its own,
// which Scope.Kill and Scope.Close end with the steps' groups. cmd must
// not have been started; its SysProcAttr is replaced; kind is unused
// elsewhere than Linux.
func (s *Scope) StartProcess(cmd *exec.Cmd, kind string) (*Process, error) {
	if err := s.enter(); err != nil {
		return nil, err
	}
	defer s.runs.Done()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := newProcess(cmd)
	p.sys.group = true
	p.sys.g = &pgroup{s: s, cmdStep: cmdStep{cmd}}
	s.mu.Lock()
	s.sys.groups[p.sys.g] = true
	s.mu.Unlock()
	if s.ended() != nil {
		p.Kill()
	}
	return p, nil
}

func (ps *processSys) kill(p *Process) {
	if ps.group {
		unix.Kill(-p.Pid(), unix.SIGKILL)
	}
}

// stop runs once the main process is reaped.
func (ps *processSys) stop(p *Process) error {
	if ps.g != nil {
		ps.g.finish()
		return nil
	}
	if ps.group {
		unix.Kill(-p.Pid(), unix.SIGKILL)
	}
	return nil
}
