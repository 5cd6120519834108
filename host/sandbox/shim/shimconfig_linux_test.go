package shim

import (
	"reflect"
	"strings"
	"testing"
)

// TestShimConfigRoundTrip: what planc builds (Config.Args) the shim
// parses back (Parse) to the same configuration, in every mode; and
// what the shim would refuse, planc refuses to build.
func TestShimConfigRoundTrip(t *testing.T) {
	for _, c := range []Config{
		{Mode: ModeStep, Lock: LockLandlock, RO: []string{"/a", "/b c"}, Cgroup: "/sys/fs/cgroup/x/step-1", Report: true, File: "/bin/sh", Argv: []string{"sh", "-c", "-- -ro x"}},
		{Mode: ModeStep, Lock: LockCaps, RO: []string{"/a"}, Cgroup: "/cg", File: "/srv", Argv: []string{"srv"}}, // a server: no -report
		{Mode: ModeSpawn, Lock: LockCaps, RO: []string{"/a"}, Cgroup: "/cg", Report: true},
		{Mode: ModeProbe, Lock: LockLandlock, RO: []string{"/tmp"}, Cgroup: "/cg", Report: true},
		{Mode: ModeGuard, Cgroup: "/cg"},
	} {
		args, err := c.Args("/usr/bin/planc")
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		if args[0] != "/usr/bin/planc" || args[1] != Command {
			t.Fatalf("args %q", args)
		}
		got, err := Parse(args[2:])
		if err != nil || !reflect.DeepEqual(got, c) {
			t.Errorf("%q parses to %+v, %v; want %+v", args, got, err, c)
		}
	}
	for _, bad := range []struct {
		c    Config
		want string
	}{
		{Config{Mode: ModeGuard}, "-cgroup is required"},
		{Config{Mode: ModeSpawn, Cgroup: "/cg"}, "the spawner needs its socket"},
		{Config{Mode: ModeStep, Cgroup: "/cg"}, "no command after --"},
		{Config{Mode: ModeStep, Cgroup: "/cg", File: "/x", RO: []string{"/a", "rel"}}, `protected path "rel" is not absolute`},
	} {
		if _, err := bad.c.Args(""); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%+v: %v; want %q", bad.c, err, bad.want)
		}
	}
}
