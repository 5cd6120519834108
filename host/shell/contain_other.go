//go:build !linux

package shell

import (
	"os/exec"
	"runtime"
)

// Contain leaves cmd as it was: elsewhere than Linux nothing is
// protected. It returns the line that says so.
func Contain(cmd *exec.Cmd, protect []string) (off string, err error) {
	return "protection of plan files and read_only paths is off: it needs Linux (" + runtime.GOOS + " has no mount namespaces); only the step refusals guard them", nil
}
