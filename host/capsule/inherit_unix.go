//go:build unix

package capsule

import (
	"os"
	"syscall"
)

// InheritedFile returns the descriptor fd a launcher passed to `planc
// __capsule` (the lifeline, the status pipe, the manifest's bytes),
// marked close-on-exec so that the entrypoint's processes do not inherit
// it, or nil when it is not open.
func InheritedFile(fd int, name string) *os.File {
	if _, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_SETFD, syscall.FD_CLOEXEC); errno != 0 {
		return nil
	}
	return os.NewFile(uintptr(fd), name)
}
