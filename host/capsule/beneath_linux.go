package capsule

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// openDir opens the roost directory dir as a descriptor (O_PATH): what
// the roost is from then on, whatever its path later names.
func openDir(dir string) (*os.File, error) {
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	return os.NewFile(uintptr(fd), dir), nil
}

// openBeneath opens rel, a relative path, for reading beneath the
// directory root without following any symbolic link and without leaving
// root (openat2 with RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS): a link put in
// the roost, or a directory of it renamed and replaced, is refused, not
// followed. name is how errors name the file.
func openBeneath(root *os.File, rel, name string) (*os.File, error) {
	how := unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NOCTTY | unix.O_NONBLOCK,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	}
	for {
		fd, err := unix.Openat2(int(root.Fd()), rel, &how)
		if err == unix.EINTR || err == unix.EAGAIN {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: name, Err: err}
		}
		return os.NewFile(uintptr(fd), name), nil
	}
}

// dirPath is the path the opened directory f has now, its links
// resolved, as the kernel knows it.
func dirPath(f *os.File) (string, error) {
	return os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
}
