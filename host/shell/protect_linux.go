package shell

import (
	"fmt"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// LandlockABI returns the Landlock ABI version this kernel offers, 0 when
// it offers none (not built in, or not among the active LSMs).
func LandlockABI() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
}

// protection decides, once per process, how steps are protected: the lock
// (lockLandlock or lockCaps), or "" and the one-line reason it is off.
var protection = sync.OnceValues(func() (lock, off string) {
	if !hasCapSysAdmin() {
		return "", "protection of plan files and read_only paths is off: a private mount namespace needs CAP_SYS_ADMIN, which planc does not have (run it as root); only the step refusals guard them"
	}
	if LandlockABI() >= 1 {
		return lockLandlock, ""
	}
	return lockCaps, ""
})

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

// landlockLock puts the calling thread in a Landlock domain that denies no
// file access (it handles only LANDLOCK_ACCESS_FS_MAKE_BLOCK and grants it
// on /) but, being a domain that handles file system access, forbids every
// change to the mount topology and ptrace access to processes outside it.
func landlockLock() error {
	const right = unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK
	attr := struct{ handledFS uint64 }{right} // struct landlock_ruleset_attr as of ABI 1
	rs, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	defer unix.Close(int(rs))
	root, err := unix.Open("/", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("opening /: %w", err)
	}
	defer unix.Close(root)
	rule := unix.LandlockPathBeneathAttr{Allowed_access: right, Parent_fd: int32(root)}
	if _, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, rs, unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&rule)), 0, 0, 0); errno != 0 {
		return fmt.Errorf("landlock_add_rule: %w", errno)
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, rs, 0, 0); errno != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", errno)
	}
	return nil
}
