package shim

import (
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// Every system call the filter names exists on both architectures planc
// is built for (port I/O on amd64 alone): the filter leaves out a name
// its architecture lacks, so a misspelt one would deny nothing.
func TestFilterNamesExist(t *testing.T) {
	for _, goarch := range []string{"amd64", "arm64"} {
		info, err := arch.GetInfo(goarch)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range append([]string{"clone", "unshare", "clone3"}, deniedSyscalls...) {
			if _, ok := info.SyscallNames[name]; !ok && (goarch == "amd64" || (name != "iopl" && name != "ioperm")) {
				t.Errorf("%s has no system call %q", goarch, name)
			}
		}
	}
}

// seccompData is struct seccomp_data for the filter run in x/net/bpf's
// interpreter, which loads words big-endian where the kernel loads them
// in the machine's order: each word is written big-endian at the offset
// the kernel reads it from (the low half of an argument first, as on a
// little-endian machine).
func seccompData(auditArch uint32, nr int, args ...uint64) []byte {
	b := make([]byte, 64)
	binary.BigEndian.PutUint32(b[0:], uint32(nr))
	binary.BigEndian.PutUint32(b[4:], auditArch)
	for i, a := range args {
		binary.BigEndian.PutUint32(b[16+8*i:], uint32(a))
		binary.BigEndian.PutUint32(b[16+8*i+4:], uint32(a>>32))
	}
	return b
}

// The filter denies what it lists, and the namespace flags of clone and
// unshare, with EPERM; allows the rest (clone3 and clone without them
// included); kills a call through another ABI; refuses x32 numbers.
func TestFilterVerdicts(t *testing.T) {
	info, err := arch.GetInfo(runtime.GOARCH)
	if err != nil {
		t.Skipf("no system call table for %s", runtime.GOARCH)
	}
	prog, err := stepFilter()
	if err != nil {
		t.Fatal(err)
	}
	insts := make([]bpf.Instruction, len(prog))
	for i, r := range prog {
		insts[i] = r.Disassemble()
	}
	vm, err := bpf.NewVM(insts)
	if err != nil {
		t.Fatal(err)
	}
	const (
		eperm = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
		allow = unix.SECCOMP_RET_ALLOW
	)
	nr := func(name string) int { return info.SyscallNames[name] }
	cases := []struct {
		what string
		data []byte
		want uint32
	}{
		{"read", seccompData(uint32(info.ID), nr("read")), allow},
		{"clone3", seccompData(uint32(info.ID), nr("clone3")), allow},
		{"clone of a thread", seccompData(uint32(info.ID), nr("clone"), unix.CLONE_VM|unix.CLONE_THREAD|unix.CLONE_SIGHAND), allow},
		{"clone with CLONE_NEWUSER", seccompData(uint32(info.ID), nr("clone"), unix.CLONE_NEWUSER|uint64(unix.SIGCHLD)), eperm},
		{"unshare(CLONE_FS)", seccompData(uint32(info.ID), nr("unshare"), unix.CLONE_FS), allow},
		{"unshare(CLONE_NEWNS)", seccompData(uint32(info.ID), nr("unshare"), unix.CLONE_NEWNS), eperm},
		{"unshare(CLONE_NEWTIME)", seccompData(uint32(info.ID), nr("unshare"), unix.CLONE_NEWTIME), eperm},
		{"another ABI", seccompData(uint32(info.ID)^1, nr("read")), unix.SECCOMP_RET_KILL_PROCESS},
	}
	for _, name := range deniedSyscalls {
		if _, ok := info.SyscallNames[name]; !ok {
			continue
		}
		cases = append(cases, struct {
			what string
			data []byte
			want uint32
		}{name, seccompData(uint32(info.ID), nr(name)), eperm})
	}
	if runtime.GOARCH == "amd64" {
		cases = append(cases, struct {
			what string
			data []byte
			want uint32
		}{"x32 read", seccompData(uint32(info.ID), 0x40000000), unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)})
	}
	for _, c := range cases {
		got, err := vm.Run(c.data)
		if err != nil || uint32(got) != c.want {
			t.Errorf("%s: %#x, %v; want %#x", c.what, got, err, c.want)
		}
	}
}

// filterCheck is the test binary re-executed as `__filtercheck DIR`
// (TestMain): as root with every capability, in a mount namespace of its
// own, it installs the step filter and makes each call the filter must
// deny, and one it must allow, printing "name: errno" per call. It tests
// the filter alone, with no capability dropped.
func filterCheck(dir string) int {
	runtime.LockOSThread()
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		fmt.Println("set-up:", err)
		return 1
	}
	prog, err := stepFilter()
	if err == nil {
		err = unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
	}
	if err == nil {
		err = loadFilter(prog)
	}
	if err != nil {
		fmt.Println("set-up:", err)
		return 1
	}
	calls := []struct {
		name string
		call func() error
	}{
		{"mount", func() error { return unix.Mount("none", dir, "tmpfs", 0, "") }},
		{"umount2", func() error { return unix.Unmount(dir, unix.MNT_DETACH) }},
		{"open_tree", func() error { _, err := unix.OpenTree(unix.AT_FDCWD, dir, unix.OPEN_TREE_CLONE); return err }},
		{"mount_setattr", func() error {
			return unix.MountSetattr(unix.AT_FDCWD, "/", 0, &unix.MountAttr{Attr_clr: unix.MOUNT_ATTR_RDONLY})
		}},
		{"fsopen", func() error { _, err := unix.Fsopen("tmpfs", 0); return err }},
		{"fspick", func() error { _, err := unix.Fspick(unix.AT_FDCWD, "/", 0); return err }},
		{"move_mount", func() error { return unix.MoveMount(unix.AT_FDCWD, dir, unix.AT_FDCWD, dir, 0) }},
		{"unshare(CLONE_NEWNS)", func() error { return unix.Unshare(unix.CLONE_NEWNS) }},
		{"clone(CLONE_NEWNS)", func() error {
			return (&exec.Cmd{Path: "/bin/true", SysProcAttr: &syscall.SysProcAttr{Cloneflags: unix.CLONE_NEWNS}}).Run()
		}},
		{"setns", func() error {
			fd, err := unix.Open("/proc/self/ns/mnt", unix.O_RDONLY, 0)
			if err != nil {
				return err
			}
			return unix.Setns(fd, unix.CLONE_NEWNS)
		}},
		{"open_by_handle_at", func() error {
			_, err := unix.OpenByHandleAt(unix.AT_FDCWD, unix.NewFileHandle(1, []byte{0, 0, 0, 0, 0, 0, 0, 0}), unix.O_RDONLY)
			return err
		}},
		{"keyctl", func() error {
			_, err := unix.KeyctlInt(unix.KEYCTL_GET_KEYRING_ID, unix.KEY_SPEC_SESSION_KEYRING, 0, 0, 0)
			return err
		}},
		{"allowed unshare(CLONE_FS)", func() error { return unix.Unshare(unix.CLONE_FS) }},
	}
	for _, c := range calls {
		err := c.call()
		var errno syscall.Errno
		if e, ok := err.(*exec.Error); ok {
			err = e.Err
		}
		if pe, ok := err.(*os.PathError); ok {
			err = pe.Err
		}
		if e, ok := err.(syscall.Errno); ok {
			errno = e
		}
		fmt.Printf("%s: %d\n", c.name, errno)
	}
	return 0
}

// The filter alone, on this kernel, denies the mount API, namespaces,
// setns, open_by_handle_at and the key rings to a process that holds
// every capability, and lets other calls through.
func TestFilterOnKernel(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: the filter is tested on a process with every capability")
	}
	cmd := exec.Command("/proc/self/exe", "__filtercheck", t.TempDir())
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: unix.CLONE_NEWNS}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 13 {
		t.Fatalf("output:\n%s", out)
	}
	for _, l := range lines {
		name, n, _ := strings.Cut(l, ": ")
		errno, _ := strconv.Atoi(n)
		want := unix.EPERM
		if strings.HasPrefix(name, "allowed") {
			want = 0
		}
		if syscall.Errno(errno) != want {
			t.Errorf("%s: %v; want %v", name, syscall.Errno(errno), want)
		}
	}
}
