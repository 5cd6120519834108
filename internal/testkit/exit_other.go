//go:build unix && !linux

package testkit

import (
	"syscall"
	"time"
)

// WaitExit waits up to wait (Patience when 0) for the process pid to end,
// and reports whether it did; without pidfds here it asks the kernel
// whether pid is still there until it is not.
func WaitExit(pid int, wait time.Duration) bool {
	return Within(wait, func() bool { return syscall.Kill(pid, 0) == syscall.ESRCH })
}
