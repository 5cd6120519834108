//go:build unix

package serve

import (
	"os"
	"syscall"
)

// reexec replaces this process with bin, given args: the descriptors the
// host passed (a shim's spawn socket, a sub-capsule's lifeline and status
// pipe) stay open.
func reexec(bin string, args []string) error {
	return syscall.Exec(bin, append([]string{bin}, args...), os.Environ())
}
