package shim

import (
	"fmt"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// RootKeeps are the capabilities a root step keeps: root's file access
// (whose writes the read-only binds stop with EROFS whatever the
// capabilities), changing its own user and group, signalling the plan's
// processes, low ports and raw sockets. Everything else is dropped from
// every set: CAP_SYS_ADMIN (mounts, namespaces), CAP_SYS_PTRACE,
// CAP_DAC_READ_SEARCH (open_by_handle_at), CAP_SYS_MODULE, CAP_SYS_RAWIO,
// CAP_BPF, CAP_MKNOD, CAP_SETPCAP, CAP_SETFCAP, CAP_LINUX_IMMUTABLE,
// CAP_SYS_CHROOT, … A step that is not root keeps none.
var RootKeeps = []uintptr{
	unix.CAP_CHOWN, unix.CAP_DAC_OVERRIDE, unix.CAP_FOWNER, unix.CAP_FSETID,
	unix.CAP_KILL, unix.CAP_SETGID, unix.CAP_SETUID,
	unix.CAP_NET_BIND_SERVICE, unix.CAP_NET_RAW,
}

// lockDown takes from the calling thread, and so from every step it
// starts, what could undo the protection (step 5 of the shim): it makes
// the process not dumpable (no step can ptrace it or open its
// /proc/PID/fd), sets no_new_privs, drops every capability but keep from
// the bounding, inheritable and ambient sets and from the permitted and
// effective ones, enters a Landlock domain under LockLandlock, and
// installs the seccomp filter prog. A step gets the dumpable flag back
// when it execs; the rest it keeps.
func lockDown(lock string, keep []uintptr, prog []bpf.RawInstruction) error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("making the shim not dumpable: %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("setting no_new_privs: %w", err)
	}
	if err := dropCaps(keep); err != nil {
		return err
	}
	if lock == LockLandlock {
		if err := landlockLock(); err != nil {
			return err
		}
	}
	return loadFilter(prog)
}

// dropCaps leaves the calling thread with keep in its permitted,
// effective and bounding sets (where it had them) and nothing in its
// inheritable and ambient ones.
func dropCaps(keep []uintptr) error {
	kept := func(c uintptr) bool {
		for _, k := range keep {
			if k == c {
				return true
			}
		}
		return false
	}
	// The bounding set first: dropping from it needs CAP_SETPCAP, which
	// goes last.
	for c := uintptr(0); ; c++ {
		if _, err := unix.PrctlRetInt(unix.PR_CAPBSET_READ, c, 0, 0, 0); err != nil {
			break // past the last capability this kernel knows
		}
		if kept(c) {
			continue
		}
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, c, 0, 0, 0); err != nil {
			return fmt.Errorf("dropping capability %d from the bounding set: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("clearing the ambient capabilities: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("reading the capabilities: %w", err)
	}
	var mask [2]uint32
	for _, k := range keep {
		mask[k/32] |= 1 << (k % 32)
	}
	for i := range data {
		data[i].Permitted &= mask[i]
		data[i].Effective = data[i].Permitted
		data[i].Inheritable = 0
	}
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("dropping capabilities: %w", err)
	}
	return nil
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
