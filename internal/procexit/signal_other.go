//go:build !unix

package procexit

import "syscall"

// SignalName names sig as Go does: the system has no SIGTERM-style names.
func SignalName(sig syscall.Signal) string { return sig.String() }
