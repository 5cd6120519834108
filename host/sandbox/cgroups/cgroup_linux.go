package cgroups

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// OwnDir returns the directory of this process's cgroup v2: where
// the sandbox makes a plan's scope (tests look there for scopes left behind).
func OwnDir() (string, error) {
	cg, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return "", err
	}
	return dirFrom(cg, mi)
}

// dirFrom finds the cgroup v2 directory from the texts of
// /proc/self/cgroup (its `0::` line) and /proc/self/mountinfo (the
// cgroup2 mounts: /sys/fs/cgroup on a unified host, often
// /sys/fs/cgroup/unified on a hybrid one).
func dirFrom(procCgroup, mountinfo []byte) (string, error) {
	cg, found := "", false
	for line := range strings.SplitSeq(string(procCgroup), "\n") {
		if rest, ok := strings.CutPrefix(line, "0::"); ok {
			cg, found = rest, true
			break
		}
	}
	if !found {
		return "", errors.New("this process is in no cgroup v2 hierarchy (/proc/self/cgroup has no 0:: line)")
	}
	if strings.HasSuffix(cg, " (deleted)") || !strings.HasPrefix(cg, "/") {
		return "", fmt.Errorf("this process's cgroup v2 %q cannot be used", cg)
	}
	mounted := false
	for line := range strings.SplitSeq(string(mountinfo), "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		f := strings.Fields(pre)
		if !ok || len(f) < 5 || !strings.HasPrefix(post, "cgroup2 ") {
			continue
		}
		mounted = true
		root, point := UnescapeMount(f[3]), UnescapeMount(f[4])
		if rel, ok := cutPathPrefix(cg, root); ok {
			return filepath.Join(point, rel), nil
		}
	}
	if !mounted {
		return "", errors.New("no cgroup2 filesystem is mounted (/proc/self/mountinfo)")
	}
	return "", fmt.Errorf("this process's cgroup v2 %s is not visible under any cgroup2 mount", cg)
}

// cutPathPrefix returns p relative to root when p is root or beneath it.
func cutPathPrefix(p, root string) (string, bool) {
	p, root = path.Clean(p), path.Clean(root)
	if root == "/" {
		return p, true
	}
	if p == root {
		return "/", true
	}
	rest, ok := strings.CutPrefix(p, root+"/")
	return "/" + rest, ok
}

// UnescapeMount undoes mountinfo's octal escapes (\040 for a space, …).
func UnescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// CheckDelegated reports why dir (this process's cgroup) cannot hold the
// plan's scope: a process can be moved into a child only by a writer of
// the cgroup.procs of the common ancestor, here dir itself.
func CheckDelegated(dir string) error {
	procs := filepath.Join(dir, "cgroup.procs")
	if err := unix.Faccessat(unix.AT_FDCWD, procs, unix.W_OK, unix.AT_EACCESS); err != nil {
		return fmt.Errorf("cannot write %s: %w", procs, err)
	}
	if err := unix.Faccessat(unix.AT_FDCWD, dir, unix.W_OK|unix.X_OK, unix.AT_EACCESS); err != nil {
		return fmt.Errorf("cannot create a cgroup in %s: %w", dir, err)
	}
	return nil
}

// MakeChild creates the cgroup dir/name and checks that it can take
// processes and be killed as a whole.
func MakeChild(dir, name string) (string, error) {
	child := filepath.Join(dir, name)
	if err := os.Mkdir(child, 0o755); err != nil {
		if pe, ok := err.(*os.PathError); ok {
			err = pe.Err // the message names the directory
		}
		return "", fmt.Errorf("cannot create a cgroup in %s: %w", dir, err)
	}
	fail := func(err error) (string, error) {
		os.Remove(child)
		return "", err
	}
	procs := filepath.Join(child, "cgroup.procs")
	if err := unix.Faccessat(unix.AT_FDCWD, procs, unix.W_OK, unix.AT_EACCESS); err != nil {
		return fail(fmt.Errorf("cannot write %s: %w", procs, err))
	}
	if _, err := os.Stat(filepath.Join(child, "cgroup.kill")); err != nil {
		return fail(fmt.Errorf("%s has no cgroup.kill (Linux 5.14 or newer is needed)", child))
	}
	return child, nil
}

// Kill sends SIGKILL to every process in dir and its descendants.
func Kill(dir string) error {
	err := os.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1"), 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// Signal sends sig to every process in dir (a leaf). A process
// forked while the list is read may miss it; SIGKILL, through
// cgroup.kill, misses none.
func Signal(dir string, sig syscall.Signal) {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return
	}
	for f := range bytes.FieldsSeq(b) {
		if pid, err := strconv.Atoi(string(f)); err == nil && pid > 0 {
			unix.Kill(pid, sig)
		}
	}
}

// emptyWait is how long WaitEmpty waits for a cgroup to empty before it
// gives up (a process stuck in the kernel).
const emptyWait = 10 * time.Second

// WaitEmpty waits until no process is left in dir or beneath it, woken by
// the kernel's notification on cgroup.events.
func WaitEmpty(dir string) error {
	f, err := os.Open(filepath.Join(dir, "cgroup.events"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	fd := int(f.Fd())
	buf := make([]byte, 512)
	deadline := time.Now().Add(emptyWait)
	for {
		n, err := unix.Pread(fd, buf, 0)
		if err != nil {
			return fmt.Errorf("reading %s: %w", f.Name(), err)
		}
		if bytes.Contains(buf[:n], []byte("populated 0")) {
			return nil
		}
		left := time.Until(deadline)
		if left <= 0 {
			return fmt.Errorf("processes are still running in %s", dir)
		}
		// POLLPRI comes when the file changes; the timeout only bounds a
		// missed wake-up.
		wait := min(left, 100*time.Millisecond)
		pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLPRI}}
		if _, err := unix.Poll(pfd, int(wait/time.Millisecond)+1); err != nil && err != unix.EINTR {
			return fmt.Errorf("waiting on %s: %w", f.Name(), err)
		}
	}
}

// Remove removes the cgroup dir and every cgroup beneath it, deepest
// first, after killing whatever runs in them and waiting for them to
// empty. It does what it can: a cgroup beneath that cannot be removed
// does not keep it from the others. A dir already gone is no error.
func Remove(dir string) error {
	err := unix.Rmdir(dir) // most often the step left nothing behind
	if err == unix.ENOENT {
		return nil
	}
	if err != unix.EBUSY {
		if err != nil {
			return fmt.Errorf("removing %s: %w", dir, err)
		}
		return nil
	}
	// One cgroup.kill ends every process beneath dir at once.
	if err := Kill(dir); err != nil {
		return fmt.Errorf("killing %s: %w", dir, err)
	}
	if err := WaitEmpty(dir); err != nil {
		return err
	}
	// Cgroups made beneath it (a nested planc run's scope) go first.
	ents, _ := os.ReadDir(dir)
	var errs []error
	for _, e := range ents {
		if e.IsDir() {
			errs = append(errs, Remove(filepath.Join(dir, e.Name())))
		}
	}
	if err := unix.Rmdir(dir); err != nil && err != unix.ENOENT {
		errs = append(errs, fmt.Errorf("removing %s: %w", dir, err))
	}
	return errors.Join(errs...)
}
