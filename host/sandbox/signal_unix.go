//go:build !windows

package sandbox

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// SignalName names sig as SIGTERM does, or as Go does when the system has
// no name for it: the one naming of signals in the messages of shell steps,
// MCP servers and capsule commands.
func SignalName(sig syscall.Signal) string {
	if n := unix.SignalName(sig); n != "" {
		return n
	}
	return sig.String()
}
