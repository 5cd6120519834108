//go:build unix

package procexit

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// SignalName names sig as SIGTERM does, or as Go does when the system has
// no name for it.
func SignalName(sig syscall.Signal) string {
	if n := unix.SignalName(sig); n != "" {
		return n
	}
	return sig.String()
}
