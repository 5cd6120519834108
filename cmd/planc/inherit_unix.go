//go:build unix

package main

import (
	"os"
	"syscall"
)

// inheritedFile returns the descriptor fd that the launcher passed, marked
// close-on-exec so that the entrypoint's processes do not inherit it, or
// nil when it is not open.
func inheritedFile(fd int, name string) *os.File {
	if _, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_SETFD, syscall.FD_CLOEXEC); errno != 0 {
		return nil
	}
	return os.NewFile(uintptr(fd), name)
}
