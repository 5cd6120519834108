//go:build unix

package session

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// lockFile takes an exclusive flock on f, waiting for it when wait is
// set; held reports that another open file holds it.
func lockFile(f *os.File, wait bool) (held bool, err error) {
	how := unix.LOCK_EX
	if !wait {
		how |= unix.LOCK_NB
	}
	for {
		err = unix.Flock(int(f.Fd()), how)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if errors.Is(err, unix.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}

// shareFile takes a shared flock on f, waiting for any exclusive one;
// an exclusive lock f holds (owned) becomes the shared one.
func shareFile(f *os.File, owned bool) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_SH)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}
