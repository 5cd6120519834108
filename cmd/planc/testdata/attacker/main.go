// Command attacker is the step the attack tests of planc run
// (attack_privs_linux_test.go) run: each class of attack on the
// protection of a step, made with the system calls themselves. It reads
// its targets from attack.json in its working directory (so that no path
// appears in the plan for a refusal to catch), prints one line per
// attempt, "blocked WHAT: ERROR" or "ESCAPED WHAT", and exits 3 when any
// attempt escaped, 0 when all were blocked.
//
// With -control it first protects the targets itself, as a bare
// read-only bind in a mount namespace of its own with all of root's
// privileges, so that the tests can show each attack defeats that on
// this kernel.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// config is attack.json.
type config struct {
	Targets []string `json:"targets"` // protected files, absolute
	Dirs    []string `json:"dirs"`    // protected directories, absolute
	Dir     string   `json:"dir"`     // the working directory that holds them
	Pids    []int    `json:"pids"`    // processes outside the plan
	Cgroups []string `json:"cgroups"` // cgroup directories above the plan's scope
	Marker  string   `json:"marker"`  // the argument that marks lingering processes
	Self    string   `json:"self"`    // this program, absolute
}

var (
	cfg     config
	escaped bool
	control bool // the attacks run against a bare bind
)

func init() { runtime.LockOSThread() } // the namespaces joined are this thread's

func blocked(what string, err error) { fmt.Printf("blocked %s: %v\n", what, err) }

// tryWrite appends to path and says whether it could.
func tryWrite(what, path string) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err == nil {
		_, err = f.WriteString("pwned\n")
		f.Close()
	}
	report(what+" then write "+path, err)
}

func report(what string, err error) {
	if err != nil {
		blocked(what, err)
		return
	}
	fmt.Printf("ESCAPED %s\n", what)
	escaped = true
}

func main() {
	args := os.Args[1:]
	control = len(args) > 0 && args[0] == "-control"
	if control {
		args = args[1:]
	}
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: attacker [-control] CLASS")
		os.Exit(2)
	}
	if args[0] == "linger" { // a process that tries to outlive the plan
		time.Sleep(time.Hour)
		return
	}
	if args[0] == "hold" { // a process outside that holds a target open for writing
		f, err := os.OpenFile(args[1], os.O_RDWR|os.O_APPEND, 0)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println("holding")
		time.Sleep(time.Hour)
		f.Close()
		return
	}
	b, err := os.ReadFile("attack.json")
	if err == nil {
		err = json.Unmarshal(b, &cfg)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "attack.json:", err)
		os.Exit(2)
	}
	if control {
		protectLikeABareBind()
	}
	attack, ok := classes[args[0]]
	if !ok {
		fmt.Fprintf(os.Stderr, "unknown class %q\n", args[0])
		os.Exit(2)
	}
	attack(args[1:])
	if escaped {
		os.Exit(3)
	}
}

// protectLikeABareBind makes the targets read-only binds in a mount
// namespace of this thread's own, keeping every privilege.
func protectLikeABareBind() {
	must(unix.Unshare(unix.CLONE_NEWNS | unix.CLONE_FS))
	must(unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, ""))
	for _, p := range cfg.Targets {
		must(unix.Mount(p, p, "", unix.MS_BIND, ""))
		must(unix.Mount("", p, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY, ""))
	}
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "control set-up:", err)
		os.Exit(2)
	}
}

var classes = map[string]func(args []string){
	"write":         attackWrite,
	"mount-setattr": attackMountSetattr,
	"open-tree":     attackOpenTree,
	"fsmount":       attackNewMountAPI,
	"umount":        attackUmount,
	"remount":       attackRemount,
	"userns":        attackUserns,
	"setns":         attackSetns,
	"proc":          attackProc,
	"handle":        attackHandle,
	"ptrace":        attackPtrace,
	"cgroup":        attackCgroup,
}

// attackWrite writes, and as the owner first makes writable.
func attackWrite([]string) {
	for _, p := range cfg.Targets {
		tryWrite("append", p)
		report("chmod "+p, os.Chmod(p, 0o666))
		tryWrite("chmod", p)
		report("rename over "+p, os.WriteFile(p+".new", []byte("pwned\n"), 0o644))
		if err := os.Rename(p+".new", p); err != nil {
			os.Remove(p + ".new")
			blocked("rename over "+p, err)
		} else {
			report("rename over "+p, nil)
		}
	}
}

// attackSetns enters the mount namespace of each process outside, then
// writes.
func attackSetns([]string) {
	unix.Unshare(unix.CLONE_FS) // setns into a mount namespace wants it unshared
	for _, pid := range outsiders() {
		what := fmt.Sprintf("setns into the mount namespace of pid %d", pid)
		fd, err := unix.Open(fmt.Sprintf("/proc/%d/ns/mnt", pid), unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			blocked(what, err)
			continue
		}
		err = unix.Setns(fd, unix.CLONE_NEWNS)
		unix.Close(fd)
		if err != nil {
			blocked(what, err)
			continue
		}
		for _, p := range cfg.Targets {
			tryWrite(what, p)
		}
	}
}

// attackProc writes the targets through /proc/PID/root of every process
// it sees and of the ones outside it was told of, and reopens for
// writing every descriptor of theirs that is a target.
func attackProc([]string) {
	pids := append([]int(nil), cfg.Pids...)
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if pid, err := strconv.Atoi(e.Name()); err == nil && pid != os.Getpid() {
			pids = append(pids, pid)
		}
	}
	for _, pid := range pids {
		if escaped {
			return // once is enough to show
		}
		root := fmt.Sprintf("/proc/%d/root", pid)
		for _, p := range cfg.Targets {
			tryWrite("via "+root, root+p)
		}
		fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
		if err != nil {
			blocked(fmt.Sprintf("listing /proc/%d/fd", pid), err)
			continue
		}
		for _, fd := range fds {
			link := fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name())
			if to, _ := os.Readlink(link); isTarget(to) {
				tryWrite("reopening "+link, link)
			}
		}
	}
}

// outsiders are the processes outside the plan it was told of and, in a
// step, process 1 (the spawner).
func outsiders() []int {
	if control {
		return cfg.Pids
	}
	return append(cfg.Pids, 1)
}

func isTarget(p string) bool {
	for _, t := range cfg.Targets {
		if strings.TrimSuffix(p, " (deleted)") == t {
			return true
		}
	}
	return false
}

// attackHandle reopens each target by its file handle through the
// working directory's mount, which is not read-only.
func attackHandle([]string) {
	mount, err := unix.Open(cfg.Dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		blocked("opening "+cfg.Dir, err)
		return
	}
	defer unix.Close(mount)
	for _, p := range cfg.Targets {
		h, _, err := unix.NameToHandleAt(unix.AT_FDCWD, p, 0)
		if err != nil {
			blocked("name_to_handle_at "+p, err)
			continue
		}
		fd, err := unix.OpenByHandleAt(mount, h, unix.O_WRONLY|unix.O_APPEND)
		if err == nil {
			_, err = unix.Write(fd, []byte("pwned\n"))
			unix.Close(fd)
		}
		report("open_by_handle_at "+p+" through "+cfg.Dir, err)
	}
}

// attackPtrace attaches to each process outside and steals its
// descriptors with pidfd_getfd, writing through any that is a target.
func attackPtrace([]string) {
	for _, pid := range outsiders() {
		if err := unix.PtraceSeize(pid); err != nil {
			blocked(fmt.Sprintf("ptrace(PTRACE_SEIZE) pid %d", pid), err)
		} else {
			report(fmt.Sprintf("ptrace(PTRACE_SEIZE) pid %d", pid), nil)
			unix.PtraceDetach(pid)
		}
		pfd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			blocked(fmt.Sprintf("pidfd_open pid %d", pid), err)
			continue
		}
		for n := 0; n < 64; n++ {
			fd, err := unix.PidfdGetfd(pfd, n, 0)
			if err == unix.EBADF {
				continue
			}
			if err != nil {
				blocked(fmt.Sprintf("pidfd_getfd pid %d fd %d", pid, n), err)
				break
			}
			to, _ := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd))
			if isTarget(to) {
				_, err := unix.Write(fd, []byte("pwned\n"))
				report(fmt.Sprintf("pidfd_getfd pid %d fd %d (%s) then write", pid, n, to), err)
			}
			unix.Close(fd)
		}
		unix.Close(pfd)
	}
}

// attackCgroup moves itself into each cgroup above the scope, by its
// cgroup.procs and by cloning a lingering child into it; and it starts a
// child in a session of its own that lingers. Whether any escaped shows
// in /proc/self/cgroup ("/.." when outside the cgroup namespace) and in
// what is left running after planc.
func attackCgroup([]string) {
	dirs := append([]string(nil), cfg.Cgroups...)
	if own, err := os.ReadFile("/proc/self/cgroup"); err == nil {
		fmt.Printf("cgroup %s", own)
	}
	for _, d := range []string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"} {
		dirs = append(dirs, d, filepath.Dir(d))
	}
	for _, d := range dirs {
		err := os.WriteFile(filepath.Join(d, "cgroup.procs"), []byte(strconv.Itoa(os.Getpid())), 0)
		if err == nil && !outside(os.Getpid()) {
			err = fmt.Errorf("moved, but not outside the scope")
		}
		report("writing its pid into "+d+"/cgroup.procs", err)
		fd, err := unix.Open(d, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			blocked("opening "+d, err)
			continue
		}
		cmd := exec.Command(cfg.Self, "linger", cfg.Marker)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, UseCgroupFD: true, CgroupFD: fd}
		err = cmd.Start()
		unix.Close(fd)
		if err == nil {
			if !outside(cmd.Process.Pid) {
				err = fmt.Errorf("started, but not outside the scope")
			}
			cmd.Process.Release()
		}
		report("clone3 with CLONE_INTO_CGROUP into "+d, err)
	}
	cmd := exec.Command(cfg.Self, "linger", cfg.Marker)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if cmd.Start() == nil {
		cmd.Process.Release()
	}
}

// outside reports whether pid's cgroup lies outside this cgroup
// namespace.
func outside(pid int) bool {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
	return strings.Contains(string(b), "0::/..")
}
