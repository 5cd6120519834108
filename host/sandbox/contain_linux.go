package sandbox

import (
	"os"
	"os/exec"

	"github.com/planc/planc/host/sandbox/cgroups"
	"github.com/planc/planc/host/sandbox/shim"
)

// Contain makes cmd, which must not have been started, run as a protected
// step runs (shim/shim_linux.go): through planc's shim (/proc/self/exe
// __shim), in namespaces of its own with the paths in protect (and those
// this process was handed in EnvProtected) read-only, its view of the
// cgroups rooted at this process's own cgroup, no process outside its own
// in sight, and the privileges that could undo that dropped. A capsule's
// command entrypoint runs so. cmd keeps its standard streams, directory
// and environment; its SysProcAttr and ExtraFiles are replaced, and it
// runs in a session of its own. Its exit status is the command's, 128+N
// when signal N ended the command, and 127 when the set-up failed
// (Contained.SetupErr says why).
//
// Call the Contained's Started once cmd.Start has returned; its Up then
// says when a signal to cmd's process group reaches the command: before
// the shim has started it, such a signal reaches only the shim, process 1
// of its namespace, which drops it.
//
// When protection is off here, Contain leaves cmd as it was and the
// Contained's Off says why (ProtectionOff's); with nothing to protect it
// leaves cmd as it was.
func Contain(cmd *exec.Cmd, protect []string) (*Contained, error) {
	protect = cleanProtect(append(inherited(), protect...))
	c := &Contained{up: make(chan struct{})}
	if len(protect) == 0 {
		return c, nil
	}
	if err := (shim.Config{RO: protect, Cgroup: "/", File: cmd.Path}).Check(); err != nil {
		return nil, err
	}
	m := protection("")
	if m.lock == "" {
		c.Off = m.off
		return c, nil
	}
	dir, err := cgroups.OwnDir()
	if err != nil {
		return nil, err
	}
	// The shim reports a failed set-up on fd 3 and closes it once the
	// command runs (-report).
	if c.report, c.reportW, err = os.Pipe(); err != nil {
		return nil, err
	}
	if err := (shim.Config{Lock: m.lock, RO: protect, Cgroup: dir, Report: true}).Wrap(cmd, ""); err != nil {
		c.report.Close()
		c.reportW.Close()
		return nil, err
	}
	cmd.SysProcAttr = m.attr(-1)
	cmd.ExtraFiles = []*os.File{c.reportW}
	return c, nil
}
