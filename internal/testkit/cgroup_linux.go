package testkit

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// AsNobody makes cmd run as uid and gid 65534.
func AsNobody(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Credential = &syscall.Credential{Uid: 65534, Gid: 65534}
}

var delegSeq atomic.Int64

// DelegatedCgroup makes a cgroup under own delegated to uid 65534 (for a
// planc run AsNobody), and opens it for CLONE_INTO_CGROUP; done closes
// it, checks that planc left no scope in it, and removes it.
func DelegatedCgroup(t testing.TB, own string) (dir string, fd int, done func()) {
	t.Helper()
	deleg := filepath.Join(own, "planc-attack-"+strconv.Itoa(os.Getpid())+"-"+strconv.FormatInt(delegSeq.Add(1), 10))
	if err := os.Mkdir(deleg, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"", "cgroup.procs", "cgroup.threads", "cgroup.subtree_control"} {
		if err := os.Chown(filepath.Join(deleg, f), 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	fd, err := syscall.Open(deleg, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	return deleg, fd, func() {
		syscall.Close(fd)
		if left, _ := filepath.Glob(filepath.Join(deleg, "planc-*")); len(left) > 0 {
			t.Errorf("planc left scopes in its delegated cgroup: %v", left)
			for _, d := range left {
				ClearCgroup(d)
			}
		}
		if err := ClearCgroup(deleg); err != nil {
			t.Errorf("removing the delegated cgroup: %v", err)
		}
	}
}

// ClearCgroup kills what runs in the cgroup dir and removes it and the
// cgroups beneath it, waiting (up to 10 s) for the killed processes to
// leave it.
func ClearCgroup(dir string) error {
	os.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1"), 0)
	subs, _ := os.ReadDir(dir)
	for _, s := range subs {
		if s.IsDir() {
			ClearCgroup(filepath.Join(dir, s.Name()))
		}
	}
	var err error
	Within(10*time.Second, func() bool {
		err = syscall.Rmdir(dir)
		return err != syscall.EBUSY
	})
	if err == syscall.ENOENT {
		return nil
	}
	return err
}
