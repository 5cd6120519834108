package sandbox

import (
	"os/exec"
	"sync"

	"github.com/planc/planc/internal/procexit"
)

// Process is a long-lived process that a plan keeps beside its steps, such
// as an MCP server: started once, spoken to over its standard streams, and
// ended by its owner with Stop. Unlike a step, no Run waits for it.
//
// Started with Scope.StartProcess it runs in a leaf cgroup of the scope
// of its own on Linux (a process group elsewhere): Stop ends its whole
// process tree, and Scope.Kill and Scope.Close end it too. Started with
// StartProcess it runs in a session and process group of its own, outside
// any scope; Stop kills that group (a process that starts a session of its
// own escapes it).
//
// Its methods may be called concurrently.
type Process struct {
	cmd  *exec.Cmd
	done chan struct{} // closed once the main process is reaped
	err  error         // how the main process ended, once done is closed

	stopOnce sync.Once
	stopErr  error
	sys      processSys
}

// StartProcess starts cmd outside any scope, in a session and process
// group of its own, so that no terminal signal reaches it and Stop can end
// what it started: for a helper that lives for a moment, such as the MCP
// servers `planc check` asks for their tools. cmd must not have been
// started; its SysProcAttr is replaced. Give it *os.File standard streams
// (os.Pipe): with other writers and readers, exec's copying goroutines
// keep Done from closing until every process holding the streams is gone.
func StartProcess(cmd *exec.Cmd) (*Process, error) {
	if err := inNewSession(cmd); err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := newProcess(cmd)
	p.sys.group = true
	return p, nil
}

// newProcess watches cmd, started, until its main process exits.
func newProcess(cmd *exec.Cmd) *Process {
	p := &Process{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = procexit.WaitError(cmd.Wait())
		close(p.done)
	}()
	return p
}

// Pid returns the main process's id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Done is closed when the main process has exited and been reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// Err returns how the main process ended once Done is closed: nil for
// exit status 0, else an error such as "exit status 3" or "killed by
// signal SIGKILL". Before Done is closed it returns nil.
func (p *Process) Err() error {
	select {
	case <-p.done:
		return p.err
	default:
		return nil
	}
}

// Kill sends SIGKILL to every process of p at once, without waiting.
func (p *Process) Kill() { p.sys.kill(p) }

// Stop kills whatever is left of p, waits for its main process to be
// reaped and, in a scope, for its leaf cgroup to empty, and removes the
// leaf. Calling it again returns the first call's error.
func (p *Process) Stop() error {
	p.stopOnce.Do(func() {
		p.Kill()
		<-p.done
		p.stopErr = p.sys.stop(p)
	})
	return p.stopErr
}
