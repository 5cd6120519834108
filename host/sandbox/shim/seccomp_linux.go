package shim

// The seccomp filter every protected step runs under (step 5 of the shim,
// shim_linux.go). It is a deny list: a step may make every system call
// but those that could undo its protection or reach past it, which fail
// with EPERM. The capability drop alone already denies most of them to
// the step itself; the filter also holds inside a user namespace the step
// creates (where it would hold every capability again over that
// namespace's copies of the mounts), and it closes the kernel's mount
// and namespace code, a common seat of privilege escalations, to steps
// altogether.
//
// The filter is assembled with github.com/elastic/go-seccomp-bpf: it
// names system calls by name from per-architecture tables generated from
// the kernel's, so one list serves amd64 and arm64 alike; it tests
// argument bits (the namespace flags of clone and unshare) across both
// 32-bit halves; and on amd64 it refuses the x32 ABI (syscall numbers with
// __X32_SYSCALL_BIT) with ENOSYS. In front of it stands a check of the
// audit architecture: a system call made through another ABI than the
// one planc was built for (i386's int 0x80 on amd64, AArch32 on arm64)
// kills the process, since this list's numbers do not apply to it.

import (
	"fmt"
	"runtime"
	"unsafe"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// deniedSyscalls are the system calls a protected step may not make.
var deniedSyscalls = []string{
	// The mount API, old and new: mounting, unmounting, remounting,
	// moving, cloning or re-flagging a mount would undo a read-only bind.
	"mount", "umount2", "pivot_root", "move_mount", "open_tree", "open_tree_attr",
	"mount_setattr", "fsopen", "fsconfig", "fsmount", "fspick",
	// Entering another namespace (planc's mount namespace, for one).
	"setns",
	// Reopening a file by handle through a mount that is not read-only.
	"open_by_handle_at",
	// The kernel's own surfaces, not for steps: eBPF, the key rings
	// (not namespaced: they would reach keys of processes outside),
	// kernel modules and kexec.
	"bpf", "add_key", "request_key", "keyctl",
	"init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load",
	// Port I/O, on x86 alone.
	"iopl", "ioperm",
}

// namespaceFlags are the clone and unshare flags that make a namespace.
// CLONE_NEWTIME is among unshare's only: in clone's first argument its
// bit is part of the exit signal.
const namespaceFlags = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS |
	unix.CLONE_NEWIPC | unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET

// stepFilter assembles the filter for this architecture. It returns nil
// and no error where go-seccomp-bpf has no system call table for it (only
// the capability drop stands there).
func stepFilter() ([]bpf.RawInstruction, error) {
	info, err := arch.GetInfo(runtime.GOARCH)
	if err != nil {
		return nil, nil
	}
	// A call this architecture does not have cannot be made.
	var names []string
	for _, n := range deniedSyscalls {
		if _, ok := info.SyscallNames[n]; ok {
			names = append(names, n)
		}
	}
	withFlags := func(name string, mask uint64) seccomp.NameWithConditions {
		return seccomp.NameWithConditions{Name: name, Conditions: seccomp.ArgumentConditions{
			{Argument: 0, Operation: seccomp.BitsSet, Value: mask},
		}}
	}
	policy := seccomp.Policy{
		DefaultAction: seccomp.ActionAllow,
		Syscalls: []seccomp.SyscallGroup{{
			Action: seccomp.ActionErrno, // EPERM
			Names:  names,
			NamesWithCondtions: []seccomp.NameWithConditions{
				withFlags("unshare", namespaceFlags|unix.CLONE_NEWTIME),
				withFlags("clone", namespaceFlags),
			},
		}},
	}
	body, err := policy.Assemble()
	if err != nil {
		return nil, fmt.Errorf("assembling the seccomp filter: %w", err)
	}
	// Another ABI than this build's: its numbers are not the list's.
	prog := append([]bpf.Instruction{
		bpf.LoadAbsolute{Off: 4, Size: 4}, // seccomp_data.arch
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(info.ID), SkipTrue: 1},
		bpf.RetConstant{Val: unix.SECCOMP_RET_KILL_PROCESS},
	}, body...)
	raw, err := bpf.Assemble(prog)
	if err != nil {
		return nil, fmt.Errorf("assembling the seccomp filter: %w", err)
	}
	return raw, nil
}

// loadFilter installs prog on the calling thread; no_new_privs must be
// set. Threads this thread starts, and programs it execs, keep it.
func loadFilter(prog []bpf.RawInstruction) error {
	if len(prog) == 0 {
		return nil
	}
	filter := make([]unix.SockFilter, len(prog))
	for i, ins := range prog {
		filter[i] = unix.SockFilter{Code: ins.Op, Jt: ins.Jt, Jf: ins.Jf, K: ins.K}
	}
	fprog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	_, _, errno := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&fprog)))
	if errno != 0 {
		return fmt.Errorf("installing the seccomp filter: %w", errno)
	}
	return nil
}
