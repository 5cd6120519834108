package protect

import (
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// dirFlags open a directory only to resolve paths from it and to stat it.
const dirFlags = unix.O_PATH

// noOpenat2 is set once openat2 is found missing (Linux before 5.6, or a
// seccomp filter that refuses it): from then on paths are walked.
var noOpenat2 atomic.Bool

// openBeneath opens directory rel beneath base in one step, following no
// symbolic link and never leaving base: openat2 with RESOLVE_NO_SYMLINKS
// and RESOLVE_BENEATH, or walkBeneath where openat2 is missing.
func openBeneath(base int, rel string) (int, error) {
	if noOpenat2.Load() {
		return walkBeneath(base, rel)
	}
	how := unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
	}
	for range 64 {
		fd, err := unix.Openat2(base, rel, &how)
		switch err {
		case nil:
			return fd, nil
		case unix.EINTR, unix.EAGAIN:
			continue // EAGAIN: a rename raced the lookup; ask again
		case unix.ENOSYS, unix.EPERM:
			noOpenat2.Store(true)
			return walkBeneath(base, rel)
		}
		return -1, err
	}
	return walkBeneath(base, rel) // renames keep racing openat2: walk instead
}

// openDirAt opens the directory c, one component, in dir without
// following it if it is a symbolic link: O_PATH with O_NOFOLLOW opens a
// link itself, which the fstat then tells apart.
func openDirAt(dir int, c string) (int, error) {
	fd, err := unix.Openat(dir, c, dirFlags|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, err
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		return fd, nil
	case unix.S_IFLNK:
		unix.Close(fd)
		return -1, errSymlink
	}
	unix.Close(fd)
	return -1, unix.ENOTDIR
}

// fdPath returns the path fd was opened at as the kernel knows it now
// (renames included), false when it cannot be told.
func fdPath(fd int) (string, bool) {
	buf := make([]byte, 4096)
	n, err := unix.Readlink("/proc/self/fd/"+strconv.Itoa(fd), buf)
	if err != nil || n == len(buf) || n == 0 || buf[0] != '/' {
		return "", false
	}
	p := string(buf[:n])
	if strings.HasSuffix(p, " (deleted)") {
		return "", false
	}
	return filepath.Clean(p), true
}
