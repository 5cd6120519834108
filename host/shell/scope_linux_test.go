package shell

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

const hybridCgroup = `9:name=systemd:/
4:memory:/process_api/769e
1:cpu:/
0::/
`

const hybridMountinfo = `22 27 0:21 / /proc rw,relatime - proc proc rw
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
`

const unifiedMountinfo = `25 30 0:23 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw
35 25 0:30 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot
`

func TestCgroupDirFrom(t *testing.T) {
	for _, c := range []struct {
		name, cgroup, mountinfo, want, err string
	}{
		{name: "hybrid", cgroup: hybridCgroup, mountinfo: hybridMountinfo, want: "/sys/fs/cgroup/unified"},
		{name: "unified", cgroup: "0::/user.slice/user-1000.slice/session-2.scope\n", mountinfo: unifiedMountinfo,
			want: "/sys/fs/cgroup/user.slice/user-1000.slice/session-2.scope"},
		{name: "mount of a subtree", cgroup: "0::/a/b/c\n",
			mountinfo: "41 31 0:38 /a /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n", want: "/sys/fs/cgroup/b/c"},
		{name: "escaped mount point", cgroup: "0::/x\n",
			mountinfo: `41 31 0:38 / /mnt/cg\040two rw - cgroup2 cgroup2 rw` + "\n", want: "/mnt/cg two/x"},
		{name: "v1 only", cgroup: "1:cpu:/\n", mountinfo: hybridMountinfo, err: "no 0:: line"},
		{name: "no cgroup2 mount", cgroup: "0::/\n", mountinfo: "22 27 0:21 / /proc rw - proc proc rw\n", err: "no cgroup2 filesystem"},
		{name: "outside the mount", cgroup: "0::/z\n",
			mountinfo: "41 31 0:38 /a /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n", err: "not visible"},
		{name: "deleted", cgroup: "0::/gone (deleted)\n", mountinfo: unifiedMountinfo, err: "cannot be used"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := cgroupDirFrom([]byte(c.cgroup), []byte(c.mountinfo))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("got %q, %v; want an error with %q", got, err, c.err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("got %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

func TestCleanProtect(t *testing.T) {
	got := cleanProtect([]string{"/a/c/", "/a b", "/a", "/a/c/d", "", "/b/../e", "/a"})
	want := []string{"/a", "/a b", "/e"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestScopeRefusal(t *testing.T) {
	got := ScopeRefusal(errors.New("cannot write /x/cgroup.procs: permission denied"))
	want := "E-RUN-012: no delegated cgroup v2 scope: cannot write /x/cgroup.procs: permission denied"
	if got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// The scope is found on this host (hybrid: cgroup2 at
// /sys/fs/cgroup/unified) and created in this process's own cgroup; Close
// removes it, leaves and all.
func TestOpenScopeHere(t *testing.T) {
	s := openTestScope(t)
	own, err := OwnCgroupDir()
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(s.Dir()) != own {
		t.Fatalf("scope %s is not a child of this process's cgroup %s", s.Dir(), own)
	}
	t.Logf("scope %s", s.Dir())
	for _, f := range []string{"cgroup.procs", "cgroup.kill", "cgroup.events"} {
		if _, err := os.Stat(filepath.Join(s.Dir(), f)); err != nil {
			t.Errorf("scope lacks %s: %v", f, err)
		}
	}
	if _, err := OpenScope(filepath.Base(s.Dir())); err == nil || !strings.Contains(err.Error(), "file exists") {
		t.Errorf("opening the same scope twice: %v; want file exists", err)
	}
	if _, err := OpenScope("a/b"); err == nil {
		t.Errorf("OpenScope(a/b) succeeded")
	}
	if r := sh(s, "", "true"); r.Err != nil {
		t.Fatal(r.Err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.Dir()); !os.IsNotExist(err) {
		t.Fatalf("scope still there after Close: %v", err)
	}
	if r := sh(s, "", "true"); r.Err == nil || !strings.Contains(r.Err.Error(), "closed") {
		t.Fatalf("Run after Close: %v", r.Err)
	}
}

// Close ends what is still running and removes its leaf too.
func TestCloseEndsRunning(t *testing.T) {
	s := openTestScope(t)
	fifo := filepath.Join(t.TempDir(), "fifo")
	done := startBlocked(t, s, fifo, "sleep 1000")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.Signal != syscall.SIGKILL {
		t.Fatalf("step ended with %+v; want SIGKILL", r)
	}
	if _, err := os.Stat(s.Dir()); !os.IsNotExist(err) {
		t.Fatalf("scope still there after Close: %v", err)
	}
}
