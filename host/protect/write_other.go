//go:build unix && !linux

package protect

import "golang.org/x/sys/unix"

// dirFlags open a directory only to resolve paths from it and to stat it.
const dirFlags = unix.O_RDONLY

// openBeneath opens directory rel beneath base: walkBeneath, as there is
// no openat2 here.
func openBeneath(base int, rel string) (int, error) { return walkBeneath(base, rel) }

// openDirAt opens the directory c, one component, in dir without
// following it if it is a symbolic link.
func openDirAt(dir int, c string) (int, error) {
	fd, err := unix.Openat(dir, c, dirFlags|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err == unix.ELOOP {
		return -1, errSymlink
	}
	return fd, err
}

// fdPath cannot tell an open file's path here.
func fdPath(int) (string, bool) { return "", false }
