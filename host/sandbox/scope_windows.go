package sandbox

import (
	"errors"
	"os"
	"os/exec"
)

// On Windows planc checks plans, lowers and draws them, and runs plans of
// tool steps (the built-in tools); it has neither cgroups nor the process
// groups that end a step's every process on macOS and the BSDs, so it
// refuses what would start processes it could not end: shell steps,
// capsule steps and MCP servers. The refusal is E-RUN-012's, before
// anything runs.

// errNoProcessControl is why nothing that starts processes runs here.
var errNoProcessControl = errors.New("windows has no way for planc to end every process of a step (no cgroups, no process groups): run plans of tool steps here, and shell steps, capsule steps and MCP servers on Linux or macOS")

// scopeSys is empty: a scope never opens on Windows.
type scopeSys struct{}

// Probe reports that no scope can be opened on Windows.
func Probe() error { return errNoProcessControl }

// OpenScope fails on Windows; see Probe.
func OpenScope(name string) (*Scope, error) { return nil, errNoProcessControl }

// Dir returns "": there are no cgroups.
func (s *Scope) Dir() string { return "" }

// ProtectionOff says that protection is not enforced on Windows.
func (s *Scope) ProtectionOff() string {
	return "protection of plan files and read_only paths is off: it needs Linux; only the step refusals guard them"
}

// Kill marks the scope killed; no step runs in it.
func (s *Scope) Kill() error {
	s.mu.Lock()
	s.killed = true
	s.mu.Unlock()
	return nil
}

// Close marks the scope closed and waits for the Runs in flight.
func (s *Scope) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.runs.Wait()
	return nil
}

// start refuses: see Probe.
func (s *Scope) start(sp Spec, path string, out *os.File) (step, error) {
	return nil, errNoProcessControl
}

// ShimMain is `planc __shim`, which only Linux uses.
func ShimMain(args []string) int {
	os.Stderr.WriteString("planc " + ShimCommand + ": protection needs Linux\n")
	return 127
}

// LandlockABI returns 0: Landlock is Linux's.
func LandlockABI() int { return 0 }

// processSys is a Process's platform part; no Process starts on Windows.
type processSys struct {
	group bool // StartProcess's mark, as elsewhere; never set here
}

// StartProcess refuses on Windows; see Probe.
func (s *Scope) StartProcess(cmd *exec.Cmd, kind string) (*Process, error) {
	return nil, errNoProcessControl
}

func (ps *processSys) kill(p *Process) {}

func (ps *processSys) stop(p *Process) error { return nil }

// inNewSession refuses: an MCP server that planc check starts could not
// be ended with what it starts.
func inNewSession(cmd *exec.Cmd) error { return errNoProcessControl }

// Prepare does nothing here: there is no spawner to start.
func (s *Scope) Prepare(protect []string) {}
