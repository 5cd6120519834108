package shell

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// setUpView does steps 1 to 4 of the shim (shim_linux.go) in the mount
// namespace planc started it in: slave mounts, the read-only binds of the
// protected paths, the cgroup view rooted at c.cgroup, and a /proc of
// the shim's PID namespace.
func setUpView(c shimConfig) error {
	mountinfo, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return err
	}
	// The view's root is opened before anything is mounted over the path.
	root, err := unix.Open(c.cgroup, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("opening the cgroup %s: %w", c.cgroup, err)
	}
	defer unix.Close(root)
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, ""); err != nil {
		return fmt.Errorf("making mounts slaves of the host's: %w", err)
	}
	wd, _ := os.Getwd()
	if err := bindAncestors(c.ro); err != nil {
		return err
	}
	for _, p := range c.ro {
		if err := bindReadOnly(p); err != nil {
			return err
		}
	}
	if err := rechdir(wd); err != nil {
		return err
	}
	v2, v1 := cgroupMounts(mountinfo)
	for _, m := range v2 {
		// The source is the descriptor's magic link, which a bind follows.
		if err := unix.Mount(fmt.Sprintf("/proc/self/fd/%d", root), m, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("binding the cgroup %s over %s: %w", c.cgroup, m, err)
		}
	}
	const nothing = unix.MOUNT_ATTR_RDONLY | unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV | unix.MOUNT_ATTR_NOEXEC
	for _, m := range append(v2, v1...) {
		if err := setReadOnly(m, nothing); err != nil {
			return err
		}
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mounting /proc for the step's PID namespace: %w", err)
	}
	return nil
}

// cgroupMounts returns the mount points of the cgroup2 and the cgroup
// (v1) file systems in mountinfo, the text of /proc/self/mountinfo.
func cgroupMounts(mountinfo []byte) (v2, v1 []string) {
	for line := range strings.SplitSeq(string(mountinfo), "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		f := strings.Fields(pre)
		if !ok || len(f) < 5 {
			continue
		}
		switch typ, _, _ := strings.Cut(post, " "); typ {
		case "cgroup2":
			v2 = append(v2, unescapeMount(f[4]))
		case "cgroup":
			v1 = append(v1, unescapeMount(f[4]))
		}
	}
	return slices.Compact(v2), slices.Compact(v1)
}

// bindReadOnly makes p, and every mount beneath it, read-only in this
// mount namespace. A p that does not exist (or is a symbolic link to
// nothing) is left alone.
func bindReadOnly(p string) error {
	if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err := unix.Mount(p, p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("bind-mounting %s: %w", p, err)
	}
	return setReadOnly(p, unix.MOUNT_ATTR_RDONLY)
}

// setReadOnly sets attr (MOUNT_ATTR_RDONLY and maybe more) on the mount
// at p and every mount beneath it.
func setReadOnly(p string, attr uint64) error {
	a := unix.MountAttr{Attr_set: attr}
	err := unix.MountSetattr(unix.AT_FDCWD, p, unix.AT_RECURSIVE, &a)
	if err == unix.ENOSYS { // before Linux 5.12: the top mount only
		err = unix.Mount("", p, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY, "")
	}
	if err != nil {
		return fmt.Errorf("making %s read-only: %w", p, err)
	}
	return nil
}
