package tools

import (
	"fmt"
	"os"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// kernelFS are the file systems whose files are the kernel's, not data:
// /proc (a process's environment, memory, the kernel's knobs), /sys,
// pseudo-terminals, cgroups, debugging and security interfaces.
var kernelFS = map[int64]string{
	unix.PROC_SUPER_MAGIC:    "/proc",
	unix.SYSFS_MAGIC:         "sysfs (/sys)",
	unix.DEVPTS_SUPER_MAGIC:  "devpts (/dev/pts)",
	unix.CGROUP_SUPER_MAGIC:  "a cgroup file system",
	unix.CGROUP2_SUPER_MAGIC: "a cgroup file system",
	unix.DEBUGFS_MAGIC:       "debugfs",
	unix.TRACEFS_MAGIC:       "tracefs",
	unix.SECURITYFS_MAGIC:    "securityfs",
	unix.BPF_FS_MAGIC:        "the BPF file system",
	0x62656570:               "configfs", // CONFIGFS_MAGIC
	unix.EFIVARFS_MAGIC:      "efivarfs",
	unix.PSTOREFS_MAGIC:      "pstore",
	unix.SELINUX_MAGIC:       "selinuxfs",
	unix.SMACK_MAGIC:         "smackfs",
	unix.BINFMTFS_MAGIC:      "binfmt_misc",
	0x65735543:               "fusectl", // FUSE_CTL_SUPER_MAGIC
	0x19800202:               "mqueue",  // MQUEUE_MAGIC
}

// devDevice is the device number of the file system mounted on /dev
// (devtmpfs, which statfs cannot tell from a tmpfs), or false when /dev
// is no mount of its own.
var devDevice = sync.OnceValues(func() (uint64, bool) {
	var dev, root unix.Stat_t
	if unix.Stat("/dev", &dev) != nil || unix.Stat("/", &root) != nil || dev.Dev == root.Dev {
		return 0, false
	}
	return dev.Dev, true
})

// checkOpened refuses fd, opened as name, unless it is a regular file
// of an ordinary file system; it returns its status.
func checkOpened(fd int, name string) (unix.Stat_t, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return st, &os.PathError{Op: "stat", Path: name, Err: err}
	}
	var sfs unix.Statfs_t
	if err := unix.Fstatfs(fd, &sfs); err != nil {
		return st, &os.PathError{Op: "statfs", Path: name, Err: err}
	}
	if what, ok := kernelFS[int64(sfs.Type)]; ok {
		return st, notPlain(name, "on "+what)
	}
	if d, ok := devDevice(); ok && st.Dev == d {
		return st, notPlain(name, "on /dev")
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		return st, nil
	case unix.S_IFDIR:
		return st, notPlain(name, "a directory")
	case unix.S_IFIFO:
		return st, notPlain(name, "a FIFO")
	case unix.S_IFSOCK:
		return st, notPlain(name, "a socket")
	case unix.S_IFCHR, unix.S_IFBLK:
		return st, notPlain(name, "a device")
	}
	return st, notPlain(name, "not a regular file")
}

// openedOK checks a file write-file opened (checkOpened).
func openedOK(f *os.File, name string) error {
	_, err := checkOpened(int(f.Fd()), name)
	return err
}

// openRead opens rel beneath root for reading, as the plan's path p:
// resolved in one step that never leaves root (openat2 with
// RESOLVE_BENEATH; symbolic links are followed while they stay beneath
// it), opened first as O_PATH, which opens nothing, and checked
// (checkOpened); then reopened for reading without blocking and checked
// to be the same file. It returns the file and its size.
func openRead(root, rel, p string) (*os.File, int64, error) {
	dir, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, 0, &os.PathError{Op: "open", Path: root, Err: err}
	}
	defer unix.Close(dir)
	fd, err := openBeneath(dir, rel)
	if err != nil {
		if err == unix.EXDEV || err == unix.ELOOP {
			return nil, 0, fmt.Errorf("%q leads outside the working directory through a symbolic link; built-in tools read only beneath it", p)
		}
		return nil, 0, &os.PathError{Op: "open", Path: p, Err: err}
	}
	defer unix.Close(fd)
	st, err := checkOpened(fd, p)
	if err != nil {
		return nil, 0, err
	}
	rfd, err := unix.Open(fmt.Sprintf("/proc/self/fd/%d", fd), unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, 0, &os.PathError{Op: "open", Path: p, Err: err}
	}
	again, err := checkOpened(rfd, p)
	if err == nil && (again.Dev != st.Dev || again.Ino != st.Ino) {
		err = fmt.Errorf("%q changed while it was opened", p)
	}
	if err != nil {
		unix.Close(rfd)
		return nil, 0, err
	}
	return os.NewFile(uintptr(rfd), p), again.Size, nil
}

// openBeneath opens rel beneath dir as O_PATH: openat2 with
// RESOLVE_BENEATH, or, where openat2 is missing, component by component
// without following any symbolic link.
func openBeneath(dir int, rel string) (int, error) {
	how := unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
	}
	for range 64 {
		fd, err := unix.Openat2(dir, rel, &how)
		switch err {
		case unix.EINTR, unix.EAGAIN:
			continue
		case unix.ENOSYS, unix.EPERM:
			return walkBeneath(dir, rel)
		}
		return fd, err
	}
	return walkBeneath(dir, rel)
}

// walkBeneath is openBeneath without openat2: each component opened
// with O_NOFOLLOW, a symbolic link refused with ELOOP.
func walkBeneath(dir int, rel string) (int, error) {
	cur, err := unix.Openat(dir, ".", unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	for _, c := range strings.Split(rel, "/") {
		if c == "." {
			continue
		}
		next, err := unix.Openat(cur, c, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		unix.Close(cur)
		if err != nil {
			return -1, err
		}
		var st unix.Stat_t
		if err := unix.Fstat(next, &st); err != nil || st.Mode&unix.S_IFMT == unix.S_IFLNK {
			unix.Close(next)
			return -1, unix.ELOOP
		}
		cur = next
	}
	return cur, nil
}
