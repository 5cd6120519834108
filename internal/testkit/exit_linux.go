package testkit

import (
	"time"

	"golang.org/x/sys/unix"
)

// WaitExit waits up to wait (Patience when 0) for the process pid — any
// process, not only a child — to end, and reports whether it did (a
// zombie has ended). It waits on the process's pidfd, which the kernel
// makes readable the moment the process exits: no polling.
func WaitExit(pid int, wait time.Duration) bool {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return err == unix.ESRCH // gone already
	}
	defer unix.Close(fd)
	deadline := time.Now().Add(orPatience(wait))
	for {
		left := time.Until(deadline)
		if left < 0 {
			left = 0
		}
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, int(left.Milliseconds()))
		switch {
		case n > 0:
			return true
		case err == unix.EINTR:
			continue
		default:
			return false
		}
	}
}
