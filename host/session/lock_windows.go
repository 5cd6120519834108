package session

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// lockOffset is where the byte range locked lies: far past the pid the
// file holds, which other processes must still read.
const lockOffset = 1 << 30

// lockFile takes an exclusive lock on a byte range of f (LockFileEx),
// waiting for it when wait is set; held reports that another handle holds
// it. Windows releases it when the process ends.
func lockFile(f *os.File, wait bool) (held bool, err error) {
	flags := uint32(windows.LOCKFILE_EXCLUSIVE_LOCK)
	if !wait {
		flags |= windows.LOCKFILE_FAIL_IMMEDIATELY
	}
	ol := &windows.Overlapped{Offset: lockOffset}
	err = windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, 1, 0, ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return true, nil
	}
	return false, err
}

// shareFile takes a shared lock on the byte range lockFile locks, waiting
// for any exclusive one; an exclusive lock f holds (owned) is released
// first, since Windows does not convert one into the other.
func shareFile(f *os.File, owned bool) error {
	h := windows.Handle(f.Fd())
	if owned {
		if err := windows.UnlockFileEx(h, 0, 1, 0, &windows.Overlapped{Offset: lockOffset}); err != nil {
			return err
		}
	}
	return windows.LockFileEx(h, 0, 0, 1, 0, &windows.Overlapped{Offset: lockOffset})
}
