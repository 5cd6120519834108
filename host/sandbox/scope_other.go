//go:build !linux && !windows

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// scopeSys is the part of a Scope that is not Linux's: the process groups
// of the running steps. There are no cgroups: a process that starts a
// session or process group of its own escapes its step's group and is not
// killed when the step ends.
type scopeSys struct {
	groups map[*pgroup]bool
}

// Probe reports nothing: elsewhere than Linux no cgroup v2 scope is
// needed.
func Probe() error { return nil }

// OpenScope returns a Scope that puts each step in a process group of its
// own; name is unused elsewhere than Linux.
func OpenScope(name string) (*Scope, error) {
	return &Scope{sys: scopeSys{groups: map[*pgroup]bool{}}}, nil
}

// Dir returns "": elsewhere than Linux a scope has no cgroup.
func (s *Scope) Dir() string { return "" }

// ProtectionOff returns the one line saying that Spec.Protect is not
// enforced: elsewhere than Linux, it never is.
func (s *Scope) ProtectionOff() string {
	return "protection of plan files and read_only paths is off: it needs Linux (" + runtime.GOOS + " has no mount namespaces); only the step refusals guard them"
}

// Kill sends SIGKILL to the process group of every running step; later
// Runs fail at once.
func (s *Scope) Kill() error {
	s.mu.Lock()
	s.killed = true
	s.mu.Unlock()
	s.killAll()
	return nil
}

// Close kills the process group of every running step and waits for the
// Runs in flight to return; later Runs fail.
func (s *Scope) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.killAll()
	s.runs.Wait()
	return nil
}

// killAll sends SIGKILL to the process group of every running step.
func (s *Scope) killAll() {
	s.mu.Lock()
	gs := make([]*pgroup, 0, len(s.sys.groups))
	for g := range s.sys.groups {
		gs = append(gs, g)
	}
	s.mu.Unlock()
	for _, g := range gs {
		g.kill()
	}
}

// start starts sp's main process, running path, in a new session and
// process group, with out as its standard output and error.
func (s *Scope) start(sp Spec, path string, out *os.File) (step, error) {
	for _, p := range sp.Protect {
		if !filepath.IsAbs(p) {
			return nil, fmt.Errorf("protected path %q is not absolute", p)
		}
	}
	cmd := &exec.Cmd{Path: path, Args: sp.Argv, Dir: sp.Dir, Env: sp.Env, Stdout: out, Stderr: out}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	g := &pgroup{s: s, cmdStep: cmdStep{cmd}}
	s.mu.Lock()
	s.sys.groups[g] = true
	s.mu.Unlock()
	return g, nil
}

// pgroup is one step's process group, whose id is its main process's.
type pgroup struct {
	cmdStep
	s   *Scope
	mu  sync.Mutex
	end bool // finish ran
}

func (g *pgroup) signal(sig syscall.Signal) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.end {
		unix.Kill(-g.cmd.Process.Pid, sig)
	}
}

func (g *pgroup) kill() { g.signal(syscall.SIGKILL) }

func (g *pgroup) finish() (setup, err error) {
	g.signal(syscall.SIGKILL) // whatever the main process left in its group
	g.mu.Lock()
	g.end = true
	g.mu.Unlock()
	g.s.mu.Lock()
	delete(g.s.sys.groups, g)
	g.s.mu.Unlock()
	return nil, nil
}

// ShimMain is `planc __shim`, which only Linux uses: elsewhere it says so
// and returns 127.
func ShimMain(args []string) int {
	fmt.Fprintf(os.Stderr, "planc %s: protection needs Linux\n", ShimCommand)
	return 127
}

// LandlockABI returns 0: Landlock is Linux's.
func LandlockABI() int { return 0 }

// Prepare does nothing here: there is no spawner to start.
func (s *Scope) Prepare(protect []string) {}
