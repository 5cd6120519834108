//go:build unix

package sandbox

import (
	"os/exec"
	"syscall"
)

// inNewSession makes cmd start in a session and process group of its own.
func inNewSession(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return nil
}
