package shim

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/planc/planc/host/sandbox/cgroups"
	"golang.org/x/sys/unix"
)

// setUpView does steps 1 to 4 of the shim (shim_linux.go) in the mount
// namespace planc started it in: slave mounts, the read-only binds of the
// protected paths, the cgroup view rooted at c.Cgroup, /sys read-only, a
// private /dev, and a /proc of the shim's PID namespace with the kernel's
// knobs read-only and its sensitive files masked.
func setUpView(c Config) error {
	mountinfo, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return err
	}
	// The host's device nodes are opened before /dev is covered.
	devs, err := openDevices()
	if err != nil {
		return err
	}
	defer func() {
		for _, fd := range devs {
			unix.Close(fd)
		}
	}()
	// The view's root is opened before anything is mounted over the path.
	root, err := unix.Open(c.Cgroup, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("opening the cgroup %s: %w", c.Cgroup, err)
	}
	defer unix.Close(root)
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, ""); err != nil {
		return fmt.Errorf("making mounts slaves of the host's: %w", err)
	}
	wd, _ := os.Getwd()
	if err := bindAncestors(c.RO); err != nil {
		return err
	}
	for _, p := range c.RO {
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
			return fmt.Errorf("binding the cgroup %s over %s: %w", c.Cgroup, m, err)
		}
	}
	const nothing = unix.MOUNT_ATTR_RDONLY | unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV | unix.MOUNT_ATTR_NOEXEC
	for _, m := range append(v2, v1...) {
		if err := setReadOnly(m, nothing); err != nil {
			return err
		}
	}
	// /sys and everything mounted beneath it (the cgroup views above
	// included) read-only: no step writes a kernel knob there.
	if err := bindReadOnly("/sys"); err != nil {
		return err
	}
	if err := privateDev(devs); err != nil {
		return err
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mounting /proc for the step's PID namespace: %w", err)
	}
	for _, p := range procReadOnly {
		if err := bindReadOnly(p); err != nil {
			return err
		}
	}
	for _, p := range maskedPaths {
		if err := mask(p); err != nil {
			return err
		}
	}
	return nil
}

// procReadOnly are the parts of /proc a step may read but not write, as
// runc leaves them in a container (its default read-only paths): the
// kernel's knobs (/proc/sys: core_pattern, whose helper the kernel would
// run as full root outside every namespace, modprobe, …), the magic SysRq
// key, IRQ affinities, bus and file system settings. A root step keeps
// uid 0, which is all a write there needs.
var procReadOnly = []string{"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"}

// maskedPaths are the files and directories of /proc and /sys a step
// cannot read at all, runc's default masked paths: a file reads as
// /dev/null, a directory as an empty read-only tmpfs. They show the
// kernel's memory (kcore), the keys of every user (keys), the timers,
// interrupts and scheduler of the whole machine, firmware tables.
var maskedPaths = []string{
	"/proc/acpi", "/proc/asound", "/proc/interrupts", "/proc/kcore", "/proc/keys",
	"/proc/latency_stats", "/proc/sched_debug", "/proc/scsi", "/proc/timer_list",
	"/proc/timer_stats", "/sys/devices/virtual/powercap", "/sys/firmware",
}

// stepDevices are the host's device nodes a step's private /dev holds,
// those bubblewrap's --dev gives: data sinks and sources, and /dev/tty,
// which opens only the step's own controlling terminal (steps run in a
// session of their own, without one).
var stepDevices = []string{"null", "zero", "full", "random", "urandom", "tty"}

// openDevices opens stepDevices in the host's /dev, O_PATH: nothing is
// opened for reading or writing. A node the host lacks is left out.
func openDevices() (map[string]int, error) {
	devs := map[string]int{}
	for _, d := range stepDevices {
		fd, err := unix.Open("/dev/"+d, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err == unix.ENOENT {
			continue
		}
		if err != nil {
			for _, fd := range devs {
				unix.Close(fd)
			}
			return nil, fmt.Errorf("opening /dev/%s: %w", d, err)
		}
		devs[d] = fd
	}
	return devs, nil
}

// privateDev covers /dev with a tmpfs of the step's own that holds only
// devs (the host's nodes, bound onto empty files), the usual links to
// /proc/self/fd, an empty /dev/shm, and a new devpts instance with the
// step's own pseudo-terminals: no step reaches the user's terminal
// (/dev/pts/N) nor any disk, console or other device of the host. The
// devpts is left out where this kernel refuses it.
func privateDev(devs map[string]int) error {
	if err := unix.Mount("tmpfs", "/dev", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "mode=0755"); err != nil {
		return fmt.Errorf("mounting a private /dev: %w", err)
	}
	for _, d := range stepDevices {
		if _, ok := devs[d]; !ok {
			continue
		}
		p := "/dev/" + d
		fd, err := unix.Open(p, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_CLOEXEC, 0o666)
		if err != nil {
			return fmt.Errorf("making %s: %w", p, err)
		}
		unix.Close(fd)
		if err := unix.Mount(fmt.Sprintf("/proc/self/fd/%d", devs[d]), p, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("binding the host's %s: %w", p, err)
		}
	}
	for name, target := range map[string]string{
		"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1",
		"stderr": "/proc/self/fd/2", "ptmx": "pts/ptmx",
	} {
		if err := unix.Symlink(target, "/dev/"+name); err != nil {
			return fmt.Errorf("making /dev/%s: %w", name, err)
		}
	}
	for _, d := range []string{"shm", "pts"} {
		if err := unix.Mkdir("/dev/"+d, 0o755); err != nil {
			return fmt.Errorf("making /dev/%s: %w", d, err)
		}
	}
	if err := unix.Chmod("/dev/shm", 0o1777); err != nil {
		return fmt.Errorf("making /dev/shm: %w", err)
	}
	// Best effort, as bubblewrap: without it a step has no pseudo-terminal.
	unix.Mount("devpts", "/dev/pts", "devpts", unix.MS_NOSUID|unix.MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620")
	return nil
}

// mask hides p (maskedPaths): a file under /dev/null, a directory under
// an empty read-only tmpfs. A p that does not exist is left alone.
func mask(p string) error {
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		if err == unix.ENOENT {
			return nil
		}
		return fmt.Errorf("masking %s: %w", p, err)
	}
	var err error
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		err = unix.Mount("tmpfs", p, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "mode=0555")
	} else {
		err = unix.Mount("/dev/null", p, "", unix.MS_BIND, "")
		if err == nil {
			return setReadOnly(p, unix.MOUNT_ATTR_RDONLY)
		}
	}
	if err != nil {
		return fmt.Errorf("masking %s: %w", p, err)
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
			v2 = append(v2, cgroups.UnescapeMount(f[4]))
		case "cgroup":
			v1 = append(v1, cgroups.UnescapeMount(f[4]))
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
