package shell

// The shim: how a shell step is kept from writing its protected paths.
//
// The shim runs in one of two modes: `planc __shim -lock MODE -ro PATH…
// -report -- FILE ARGV…` execs one step, and `planc __shim -lock MODE -ro
// PATH… -report -spawn` is a scope's spawner (spawner_linux.go), which starts many. Run
// uses the spawner, and a shim per step only for a request too big for the
// spawner's socket. On one locked OS thread, the shim:
//
//  1. enters a new mount namespace (unshare CLONE_NEWNS: the thread's own,
//     so a shim run by hand cannot touch the host's mounts) and makes
//     every mount in it a slave of the host's (nothing it mounts
//     propagates back, while the host's new mounts still show);
//  2. bind-mounts each protected path onto itself and makes the bind
//     read-only, recursively (mount_setattr with AT_RECURSIVE): writing,
//     truncating or creating under it fails with EROFS; unlinking,
//     renaming or renaming over it fails with EBUSY (it is a mount point
//     in the step's namespace); a hard link out of it fails with EXDEV.
//     Everything else, the directories that hold a protected path
//     included, stays exactly as writable as it was: the step can create
//     and write files next to a protected file or in the working directory
//     that holds the session directory;
//  3. locks that in: with Landlock (lockLandlock) it enters a Landlock
//     domain, in which the kernel refuses every mount, umount, remount or
//     move_mount (so the binds cannot be undone) and ptrace access to any
//     process outside the domain (so the real files cannot be reached
//     through /proc/PID/root of planc or any other process, and no mount
//     namespace fd of theirs can be had for setns). The domain handles one
//     access right, making block devices, and grants it on /, so it denies
//     no file access. Without Landlock (lockCaps) it drops CAP_SYS_ADMIN
//     and CAP_SYS_PTRACE from the bounding set instead, to the same ends;
//     either way it drops CAP_DAC_READ_SEARCH, which open_by_handle_at
//     would use to reopen a protected file through a writable mount;
//  4. execs FILE with ARGV, or as the spawner starts each step, from the
//     same OS thread: namespaces, Landlock domains and the bounding set
//     belong to the thread, and exec and fork keep the thread's.
//
// A step's shim writes a failed set-up to fd 3, which the exec closes
// (close-on-exec) when all went well, and Run makes the report the step's
// error; the spawner sends it on its socket (fd 3) instead.
//
// Why not Landlock alone: Landlock only grants, and a grant on a directory
// covers every file created beneath it later. To keep a step from writing
// plans/ inside the working directory W, W itself could not be granted
// WRITE_FILE, so a file the step creates directly in W (or in a directory
// it creates there, like cargo's target/) could not be written; likewise
// next to a protected file. That is the case runtime.md requires to work.
//
// Limits: the protection holds against a step's file operations, not
// against a root step that sets out to defeat it through raw block
// devices or the like. A step may still rename a directory that holds a
// protected path (the files move with it, unchanged). A path that does not
// exist when the shim or spawner starts is not protected. A hard link to a
// protected file made elsewhere before the step is the same file, and is
// not protected. chmod, chown and utimes on a protected path fail with
// EROFS like any write. A protected path that is a symbolic link protects
// its target, not the link. Under the Landlock lock a step can mount
// nothing, and cannot ptrace, or read /proc/PID/{environ,fd,mem,root} of,
// a process outside its domain (planc's, or any other outside the plan's
// protected steps and the spawner).

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// The ways a step is kept from undoing its read-only binds.
const (
	lockLandlock = "landlock" // a Landlock domain
	lockCaps     = "caps"     // CAP_SYS_ADMIN and CAP_SYS_PTRACE dropped
)

// shimConfig is the shim's parsed command line.
type shimConfig struct {
	lock   string
	ro     []string
	report bool // fd 3 is the report pipe, or the spawner's socket
	spawn  bool // the spawner, not one step
	file   string
	argv   []string
}

// parseShim parses the arguments after __shim.
func parseShim(args []string) (shimConfig, error) {
	var c shimConfig
	for len(args) > 0 {
		a := args[0]
		switch {
		case a == "--":
			if len(args) < 3 {
				return c, errors.New("no command after --")
			}
			c.file, c.argv = args[1], args[2:]
			return c, nil
		case a == "-report":
			c.report = true
			args = args[1:]
		case a == "-spawn" && len(args) == 1:
			c.spawn = true
			return c, nil
		case (a == "-ro" || a == "-lock") && len(args) > 1:
			if a == "-ro" {
				c.ro = append(c.ro, args[1])
			} else {
				c.lock = args[1]
			}
			args = args[2:]
		default:
			return c, fmt.Errorf("unexpected argument %q", a)
		}
	}
	return c, errors.New("no command after --")
}

// ShimMain is `planc __shim`, with the arguments after __shim, run by a
// Scope in a leaf cgroup of its own: it makes the protected paths
// read-only, locks that in, and then either execs the step's file or, with
// -spawn, serves as the scope's spawner of protected steps on fd 3. A
// step's shim returns only on failure, with the exit status 127, after
// writing the reason to fd 3 when -report says it is the report pipe, to
// standard error otherwise.
func ShimMain(args []string) int {
	c, err := parseShim(args)
	report := 2
	if c.report {
		// fd 3 is used raw: an *os.File for it could be finalized,
		// closing it.
		report = 3
		unix.FcntlInt(3, unix.F_SETFD, unix.FD_CLOEXEC)
	}
	// The step gets standard input, output and error, nothing else.
	unix.CloseRange(3, math.MaxUint32, unix.CLOSE_RANGE_CLOEXEC)
	say := func(msg string) int {
		if report == 2 {
			msg = "planc " + ShimCommand + ": " + msg + "\n"
		}
		unix.Write(report, []byte(msg))
		return 127
	}
	if err != nil {
		return say(err.Error())
	}
	runtime.LockOSThread() // the thread that is restricted is the one that execs
	if c.spawn {
		if !c.report {
			return say("the spawner needs its socket on fd 3 (-report)")
		}
		return serveSpawner(c)
	}
	if err := shimProtect(c); err != nil {
		return say("protecting the step's read-only paths: " + err.Error())
	}
	err = unix.Exec(c.file, c.argv, os.Environ())
	return say(fmt.Sprintf("exec %s: %v", c.file, err))
}

// shimProtect does steps 1 to 3 of the shim.
func shimProtect(c shimConfig) error {
	if c.lock != lockLandlock && c.lock != lockCaps {
		return fmt.Errorf("unknown lock %q", c.lock)
	}
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		return fmt.Errorf("entering a mount namespace: %w", err)
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, ""); err != nil {
		return fmt.Errorf("making mounts slaves of the host's: %w", err)
	}
	for _, p := range c.ro {
		if err := bindReadOnly(p); err != nil {
			return err
		}
	}
	if err := unix.Prctl(unix.PR_CAPBSET_DROP, unix.CAP_DAC_READ_SEARCH, 0, 0, 0); err != nil {
		return fmt.Errorf("dropping CAP_DAC_READ_SEARCH: %w", err)
	}
	if c.lock == lockLandlock {
		return landlockLock()
	}
	for _, cp := range []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_SYS_PTRACE} {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, cp, 0, 0, 0); err != nil {
			return fmt.Errorf("dropping capability %d: %w", cp, err)
		}
	}
	return nil
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
	attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
	err := unix.MountSetattr(unix.AT_FDCWD, p, unix.AT_RECURSIVE, &attr)
	if err == unix.ENOSYS {
		err = unix.Mount("", p, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY, "")
	}
	if err != nil {
		return fmt.Errorf("making %s read-only: %w", p, err)
	}
	return nil
}

// cleanProtect cleans the protected paths and drops those beneath
// another (binding the outer one read-only covers them).
func cleanProtect(paths []string) []string {
	var out []string
	for _, p := range paths {
		if p != "" {
			out = append(out, filepath.Clean(p))
		}
	}
	slices.Sort(out)
	out = slices.Compact(out)
	var kept []string
	for _, p := range out {
		if !slices.ContainsFunc(kept, func(k string) bool { return under(p, k) }) {
			kept = append(kept, p)
		}
	}
	return kept
}

// under reports whether p lies strictly beneath dir.
func under(p, dir string) bool {
	if dir == "/" {
		return p != "/"
	}
	return strings.HasPrefix(p, dir+"/")
}
