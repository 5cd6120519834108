package shell

import (
	"os/exec"
	"reflect"
	"strings"
	"testing"
)

// TestShimConfigRoundTrip: what planc builds (shimConfig.args) the shim
// parses back (parseShim) to the same configuration, in every mode; and
// what the shim would refuse, planc refuses to build.
func TestShimConfigRoundTrip(t *testing.T) {
	for _, c := range []shimConfig{
		{mode: modeStep, lock: lockLandlock, ro: []string{"/a", "/b c"}, cgroup: "/sys/fs/cgroup/x/step-1", report: true, file: "/bin/sh", argv: []string{"sh", "-c", "-- -ro x"}},
		{mode: modeStep, lock: lockCaps, ro: []string{"/a"}, cgroup: "/cg", file: "/srv", argv: []string{"srv"}}, // a server: no -report
		{mode: modeSpawn, lock: lockCaps, ro: []string{"/a"}, cgroup: "/cg", move: "/cg/spawner-1", report: true},
		{mode: modeProbe, lock: lockLandlock, ro: []string{"/tmp"}, cgroup: "/cg", report: true},
		{mode: modeGuard, cgroup: "/cg"},
	} {
		args, err := c.args("/usr/bin/planc")
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		if args[0] != "/usr/bin/planc" || args[1] != ShimCommand {
			t.Fatalf("args %q", args)
		}
		got, err := parseShim(args[2:])
		if err != nil || !reflect.DeepEqual(got, c) {
			t.Errorf("%q parses to %+v, %v; want %+v", args, got, err, c)
		}
	}
	for _, bad := range []struct {
		c    shimConfig
		want string
	}{
		{shimConfig{mode: modeGuard}, "-cgroup is required"},
		{shimConfig{mode: modeSpawn, cgroup: "/cg"}, "the spawner needs its socket"},
		{shimConfig{mode: modeStep, cgroup: "/cg"}, "no command after --"},
		{shimConfig{mode: modeStep, cgroup: "/cg", file: "/x", ro: []string{"/a", "rel"}}, `protected path "rel" is not absolute`},
	} {
		if _, err := bad.c.args(""); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%+v: %v; want %q", bad.c, err, bad.want)
		}
	}
}

// TestStartServerNotAbsolute: StartServer checks the protected paths as a
// step's shim does (it once skipped the check that Run and Contain make):
// a path handed down in PLANC_PROTECTED that is not absolute refuses the
// server before anything starts, as it refuses a step.
func TestStartServerNotAbsolute(t *testing.T) {
	s := openTestScope(t)
	t.Setenv(EnvProtected, `["relative/dir"]`)
	cmd := exec.Command("true")
	if _, err := s.StartServer(cmd, "mcp"); err == nil || !strings.Contains(err.Error(), `protected path "relative/dir" is not absolute`) {
		t.Errorf("StartServer: %v; want the path refused", err)
	}
	if cmd.Process != nil {
		t.Error("the server was started")
	}
	if _, err := Contain(exec.Command("true"), nil); err == nil || !strings.Contains(err.Error(), "not absolute") {
		t.Errorf("Contain: %v; want the same refusal", err)
	}
}
