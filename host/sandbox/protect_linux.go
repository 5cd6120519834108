package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/planc/planc/host/sandbox/cgroups"
	"github.com/planc/planc/host/sandbox/shim"
	"golang.org/x/sys/unix"
)

// EnvLock names the environment variable that chooses the lock by hand:
// "caps" makes planc use the caps lock (shim.LockCaps: everything but
// Landlock) even where the kernel has Landlock, as a kernel without it
// would; "landlock" or unset lets planc choose. It is for tests of the
// path older kernels take, and for a kernel whose Landlock misbehaves.
const EnvLock = "PLANC_PROTECT_LOCK"

// protectMode is how this process protects steps.
type protectMode struct {
	lock   string // shim.LockLandlock or shim.LockCaps; "" when protection is off
	userns bool   // planc is not root: the shim gets a user namespace
	off    string // why protection is off, "" when it is on
}

// LandlockABI returns the Landlock ABI version this kernel offers, 0 when
// it offers none (not built in, or not among the active LSMs).
func LandlockABI() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
}

// offPrefix begins every line that says protection is off.
const offPrefix = "protection of plan files and read_only paths is off: "

// offSuffix ends it.
const offSuffix = "; only the step refusals guard them"

var (
	protectMu   sync.Mutex  // held while protection is decided
	protectDone bool        // protectHere is decided
	protectHere protectMode // how this process protects steps, once decided
	probesRun   atomic.Int64
)

// chosenMode is the lock and namespaces this process would protect steps
// with, before the kernel is asked whether they work.
func chosenMode() protectMode {
	m := protectMode{lock: shim.LockCaps, userns: !hasCapSysAdmin()}
	if LandlockABI() >= 1 && os.Getenv(EnvLock) != shim.LockCaps {
		m.lock = shim.LockLandlock
	}
	return m
}

// protection decides, once per process, how steps are protected: it
// chooses the lock and the namespaces, and starts the shim once with
// -probe (exe as the executable) to learn whether this kernel and this
// user allow them; when they do not, protection is off and off says why.
// A scope's Prepare decides it instead when its first spawner starts: the
// spawner is the same shim set up the same way, and the probe is then
// not needed.
func protection(exe string) protectMode {
	protectMu.Lock()
	defer protectMu.Unlock()
	if !protectDone {
		m := chosenMode()
		probesRun.Add(1)
		if err := probe(exe, m); err != nil {
			who := "a private mount namespace for the steps"
			if m.userns {
				who = fmt.Sprintf("planc runs as uid %d without CAP_SYS_ADMIN, and an unprivileged user namespace with a private mount namespace", os.Getuid())
			}
			m = protectMode{off: offPrefix + who + " could not be set up: " + err.Error() + offSuffix}
		}
		protectHere, protectDone = m, true
	}
	return protectHere
}

// probe starts the shim in -probe mode with m's namespaces and returns
// why it could not set itself up, or nil.
func probe(exe string, m protectMode) error {
	dir, err := cgroups.OwnDir()
	if err != nil {
		return err
	}
	args, err := shim.Config{Mode: shim.ModeProbe, Lock: m.lock, RO: []string{os.TempDir()}, Cgroup: dir, Report: true}.Args(exe)
	if err != nil {
		return err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	cmd := &exec.Cmd{Path: args[0], Args: args, ExtraFiles: []*os.File{w}, SysProcAttr: m.attr(-1)}
	err = cmd.Start()
	w.Close()
	switch {
	case errors.Is(err, unix.ENOSPC) && m.userns:
		return errors.New("user.max_user_namespaces allows no more user namespaces")
	case (errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES)) && m.userns:
		return errors.New("the kernel refuses unprivileged user namespaces, by kernel.unprivileged_userns_clone or a security module's policy")
	case err != nil:
		return err
	}
	msg, _ := io.ReadAll(r)
	werr := cmd.Wait()
	switch {
	case len(msg) > 0:
		return errors.New(strings.TrimPrefix(string(msg), "protecting the step's read-only paths: "))
	case werr != nil:
		return werr
	}
	return nil
}

// attr returns how planc starts a shim (shim/shim_linux.go): in a session of
// its own, in new mount, cgroup and PID namespaces (and a user namespace
// when planc is not root), inside the cgroup open as cgroupFD when it is
// not -1.
func (m protectMode) attr(cgroupFD int) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{
		Setsid:     true,
		Cloneflags: unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWPID,
	}
	if cgroupFD >= 0 {
		a.UseCgroupFD, a.CgroupFD = true, cgroupFD
	}
	if m.userns {
		// planc's own user and group only; the shim gets the
		// capabilities it needs over the new namespace alone, and
		// drops them before any step runs.
		a.Cloneflags |= unix.CLONE_NEWUSER
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
		a.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_SETPCAP}
	}
	return a
}

// hasCapSysAdmin reports whether this process has CAP_SYS_ADMIN in its
// effective set.
func hasCapSysAdmin() bool {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return false
	}
	const c = unix.CAP_SYS_ADMIN
	return data[c/32].Effective&(1<<(c%32)) != 0
}
