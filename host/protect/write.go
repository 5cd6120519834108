//go:build unix

package protect

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// outsideBase splits full, an absolute path outside the working
// directory, into the directory it is opened beneath, "/", and the rest.
func outsideBase(full string) (dir, rel string) { return "/", strings.TrimPrefix(full, "/") }

// openBase opens dir, the trusted base: its own path may hold symbolic
// links (the working directory often does).
func openBase(dir string) (int, error) {
	fd, err := unix.Open(dir, dirFlags|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	return fd, nil
}

// splitLocal checks that name is a local path (relative, no ".." out of
// the base, no NUL) and returns its clean form.
func splitLocal(name string) (string, error) {
	if strings.IndexByte(name, 0) >= 0 || !filepath.IsLocal(name) {
		return "", fmt.Errorf("%q is not a path beneath the directory it is opened in", name)
	}
	return filepath.Clean(name), nil
}

// OpenWrite opens name, a local path beneath dir, for writing with flag
// (os.O_WRONLY or os.O_RDWR, and os.O_CREATE, os.O_EXCL, os.O_TRUNC,
// os.O_APPEND) and, when it creates the file, perm. dir itself is opened
// as given, symbolic links in its own path followed; name is resolved from
// there in one step, without following any symbolic link (openat2 with
// RESOLVE_NO_SYMLINKS and RESOLVE_BENEATH, or O_NOFOLLOW component by
// component where openat2 is missing): a name with a symbolic link in it
// is refused with a *SymlinkError.
//
// Then what was opened is checked, not the name: the directory the file is
// in, and every directory above it, must not be a protected directory of
// set (by identity), nor lie under a protected path (by its real path);
// the file must not be a protected file (by identity: a hard link is the
// same file); the file must be a regular file (a FIFO or device is
// refused without blocking); and a regular file with no write permission
// bit is refused even for root (the session's plan files are mode 0444).
// An appendable file of set (NewSet) passes when flag appends and does not
// truncate. A refusal on set is a *ProtectedError. os.O_TRUNC applies only once the
// checks pass, so a refused open truncates nothing; os.O_CREATE makes a
// file only in a directory already checked. A nil set protects nothing,
// but the other rules hold.
func OpenWrite(dir, name string, flag int, perm os.FileMode, set *Set) (*os.File, error) {
	pfd, rel, leaf, err := openParent(dir, name)
	if err != nil {
		return nil, err
	}
	defer unix.Close(pfd)
	appending := flag&os.O_APPEND != 0 && flag&os.O_TRUNC == 0
	if err := set.checkDir(pfd, leaf, rel, true, appending); err != nil {
		return nil, err
	}
	oflag := flag&^os.O_TRUNC | unix.O_NOFOLLOW | unix.O_CLOEXEC | unix.O_NONBLOCK | unix.O_NOCTTY
	fd, err := unix.Openat(pfd, leaf, oflag, uint32(perm.Perm()))
	for err == unix.EINTR {
		fd, err = unix.Openat(pfd, leaf, oflag, uint32(perm.Perm()))
	}
	if err == unix.ENXIO {
		// A FIFO without a reader or a socket: O_NONBLOCK kept the open
		// from waiting.
		return nil, notRegular(rel)
	}
	if err != nil {
		return nil, walkError(dir, rel, err)
	}
	if err := set.checkFile(fd, rel); err != nil {
		unix.Close(fd)
		return nil, err
	}
	if flag&os.O_TRUNC != 0 {
		if err := unix.Ftruncate(fd, 0); err != nil {
			unix.Close(fd)
			return nil, &fs.PathError{Op: "truncate", Path: name, Err: err}
		}
	}
	if flag&unix.O_NONBLOCK == 0 {
		if err := unix.SetNonblock(fd, false); err != nil {
			unix.Close(fd)
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
	}
	return os.NewFile(uintptr(fd), filepath.Join(dir, rel)), nil
}

// openParent opens, beneath dir and following no symbolic link
// (openBeneath), the directory that name, a local path, lies in, for
// OpenWrite and ProbeWrite: its descriptor, which the caller closes, name
// as a cleaned local path, and its last component.
func openParent(dir, name string) (pfd int, rel, leaf string, err error) {
	if rel, err = splitLocal(name); err != nil {
		return -1, "", "", err
	}
	base, err := openBase(dir)
	if err != nil {
		return -1, "", "", err
	}
	defer unix.Close(base)
	parentRel, leaf := filepath.Split(rel)
	if pfd, err = openBeneath(base, filepath.Clean("./"+parentRel)); err != nil {
		return -1, "", "", walkError(dir, rel, err)
	}
	return pfd, rel, leaf, nil
}

// MkdirAll makes name, a local path beneath dir, and every directory
// above it that is missing, each with perm, without following a symbolic
// link: component by component, each opened with O_NOFOLLOW and checked
// to be a directory. Before it makes a directory it checks the one it
// makes it in as OpenWrite does: no protected directory of set, nor
// anything under a protected path, gets a new entry.
func MkdirAll(dir, name string, perm os.FileMode, set *Set) error {
	rel, err := splitLocal(name)
	if err != nil {
		return err
	}
	if rel == "." {
		return nil
	}
	cur, err := openBase(dir)
	if err != nil {
		return err
	}
	defer func() { unix.Close(cur) }()
	checked := false // a directory has been made: cur lies beneath checked ones
	done := ""
	for _, c := range strings.Split(rel, string(filepath.Separator)) {
		done = filepath.Join(done, c)
		next, err := openDirAt(cur, c)
		if errors.Is(err, unix.ENOENT) {
			if err := set.checkDir(cur, c, done, !checked, false); err != nil {
				return err
			}
			checked = true
			if err := unix.Mkdirat(cur, c, uint32(perm.Perm())); err != nil && err != unix.EEXIST {
				return &fs.PathError{Op: "mkdir", Path: done, Err: err}
			}
			next, err = openDirAt(cur, c)
		}
		if err != nil {
			return walkError(dir, done, err)
		}
		unix.Close(cur)
		cur = next
		if e := set.dirEntry(cur); checked && e != nil {
			// A step swapped a protected directory in where one was made.
			real, _ := fdPath(cur)
			return &ProtectedError{Name: done, Path: real, Protected: e.path}
		}
	}
	return nil
}

// walkError turns an error of resolving rel beneath dir into the error a
// tool reports: a *SymlinkError for a symbolic link in the way, else an
// *fs.PathError.
func walkError(dir, rel string, err error) error {
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EXDEV) || errors.Is(err, errSymlink) {
		se := &SymlinkError{Name: rel}
		done := ""
		for _, c := range strings.Split(rel, string(filepath.Separator)) {
			done = filepath.Join(done, c)
			if fi, err := os.Lstat(filepath.Join(dir, done)); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
				se.Link = done
				break
			}
		}
		if t, err := filepath.EvalSymlinks(filepath.Join(dir, rel)); err == nil {
			se.Target = t
		} else if t, err := filepath.EvalSymlinks(filepath.Join(dir, filepath.Dir(rel))); err == nil {
			se.Target = filepath.Join(t, filepath.Base(rel))
		}
		return se
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return err
	}
	return &fs.PathError{Op: "open", Path: rel, Err: err}
}

// walkBeneath opens directory rel beneath base component by component,
// each with O_NOFOLLOW: what openat2 does in one call, where there is no
// openat2.
func walkBeneath(base int, rel string) (int, error) {
	cur, err := unix.Openat(base, ".", dirFlags|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	if rel == "." {
		return cur, nil
	}
	for _, c := range strings.Split(rel, "/") {
		next, err := openDirAt(cur, c)
		unix.Close(cur)
		if err != nil {
			return -1, err
		}
		cur = next
	}
	return cur, nil
}

// errSymlink is a component found to be a symbolic link by the walk.
var errSymlink = errors.New("a symbolic link")

// ProbeWrite returns the *ProtectedError OpenWrite of name beneath dir
// would return on set because of the file that is there now — a protected
// file, or another name (a hard link) of a file under a protected
// directory — without opening anything for writing, so that a step can be
// refused before it is dispatched. It returns nil when that file is not
// protected, and when it cannot tell (no such file, a path OpenWrite
// refuses for another reason): OpenWrite, which checks the file it opens,
// still decides.
func ProbeWrite(dir, name string, set *Set) *ProtectedError {
	if set == nil {
		return nil
	}
	pfd, rel, leaf, err := openParent(dir, name)
	if err != nil {
		return nil
	}
	defer unix.Close(pfd)
	var pe *ProtectedError
	if err := set.checkDir(pfd, leaf, rel, true, false); err != nil {
		if errors.As(err, &pe) {
			return pe
		}
		return nil
	}
	// Looked at, not opened: no device is opened, no FIFO waited on, and
	// a symbolic link is the link itself, which is no regular file.
	var st unix.Stat_t
	if unix.Fstatat(pfd, leaf, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return nil
	}
	if errors.As(set.checkStat(&st, rel, func() string { return filepath.Join(dir, rel) }), &pe) {
		return pe
	}
	return nil
}
