package sandbox

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/planc/planc/host/sandbox/shim"
)

// A protected step holds no capability but root's file-access ones, in
// no set; no_new_privs and the filter are on; it sees no process outside
// its PID namespace, and the cgroups from its scope down, read-only. An
// unprotected one keeps what this process has.
func TestStepPrivileges(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: a root step's capabilities are the case")
	}
	var keep uint64
	for _, c := range shim.RootKeeps {
		keep |= 1 << c
	}
	want := map[string]string{
		"CapInh": "0000000000000000", "CapAmb": "0000000000000000",
		"CapPrm": fmt.Sprintf("%016x", keep), "CapEff": fmt.Sprintf("%016x", keep), "CapBnd": fmt.Sprintf("%016x", keep),
		"NoNewPrivs": "1", "Seccomp": "2",
	}
	script := `grep -E '^(Cap|NoNewPrivs|Seccomp:)' /proc/self/status; echo pids $(ls -d /proc/[0-9]* | wc -l); ` +
		`test -e /proc/` + strconv.Itoa(os.Getpid()) + ` && echo planc is visible; ` +
		`echo $$ > /sys/fs/cgroup/unified/cgroup.procs 2>/dev/null || echo cgroup.procs read-only`
	for _, lock := range locks() {
		for _, perStep := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/perStep=%v", lock, perStep), func(t *testing.T) {
				s := protectedScope(t)
				s.sys.lock, s.sys.perStep = lock, perStep
				r := sh(s, "", script, t.TempDir())
				if r.Err != nil {
					t.Fatalf("%v: %s", r.Err, r.Output)
				}
				got := map[string]string{}
				for l := range strings.SplitSeq(string(r.Output), "\n") {
					if k, v, ok := strings.Cut(l, ":"); ok {
						got[k] = strings.TrimSpace(v)
					}
				}
				for k, v := range want {
					if got[k] != v {
						t.Errorf("%s: %q; want %q", k, got[k], v)
					}
				}
				out := string(r.Output)
				if strings.Contains(out, "planc is visible") || !strings.Contains(out, "cgroup.procs read-only") {
					t.Errorf("output:\n%s", out)
				}
			})
		}
	}
	s := openTestScope(t)
	if r := sh(s, "", `grep -E '^(NoNewPrivs|Seccomp):' /proc/self/status`); !strings.Contains(string(r.Output), "NoNewPrivs:\t0") {
		t.Errorf("an unprotected step: %s", r.Output)
	}
}

// A shim for one step, process 1 of its PID namespace, exits with the
// step's status, and with 128+N for a signal N; the spawner reports the
// signal itself.
func TestShimExitStatus(t *testing.T) {
	s := protectedScope(t)
	protect := []string{t.TempDir()}
	for _, perStep := range []bool{false, true} {
		s.sys.perStep = perStep
		if r := sh(s, "", "exit 7", protect...); r.ExitCode != 7 || r.Err.Error() != "exit status 7" {
			t.Errorf("perStep=%v: exit 7: %+v", perStep, r)
		}
		r := sh(s, "", "kill -TERM $$", protect...)
		switch {
		case perStep && (r.ExitCode != 128+int(syscall.SIGTERM) || r.Signal != 0):
			t.Errorf("shim per step: killed by SIGTERM: %+v; want exit status 143", r)
		case !perStep && r.Signal != syscall.SIGTERM:
			t.Errorf("spawner: killed by SIGTERM: %+v", r)
		}
	}
}
