//go:build unix

package regfile

import "syscall"

// nonBlock keeps an open of a FIFO from waiting for a writer; noFollow
// refuses a symbolic link as the last component.
const (
	nonBlock = syscall.O_NONBLOCK
	noFollow = syscall.O_NOFOLLOW
)
