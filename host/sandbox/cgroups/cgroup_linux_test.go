package cgroups

import (
	"strings"
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
			got, err := dirFrom([]byte(c.cgroup), []byte(c.mountinfo))
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
