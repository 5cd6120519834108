package testkit

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/planc/planc/host/sandbox"
	"github.com/planc/planc/host/sandbox/cgroups"
	"github.com/planc/planc/internal/sessionfmt"
)

// NeedScope skips the test when this machine gives no delegated cgroup v2
// scope: planc run would refuse every shell or capsule step with
// E-RUN-012.
func NeedScope(t testing.TB) {
	t.Helper()
	if err := sandbox.Probe(); err != nil {
		t.Skipf("no delegated cgroup v2 scope here: %v", err)
	}
}

// ScopesLeft returns the cgroups named planc-<session>-* left under this
// process's cgroup v2: only the scopes of the test's own session, so that
// other tests running at once do not count.
func ScopesLeft(t testing.TB, session string) []string {
	t.Helper()
	dir, err := cgroups.OwnDir()
	if err != nil {
		return nil // no cgroup v2 here: no scope was made
	}
	left, _ := filepath.Glob(filepath.Join(dir, "planc-"+session+"-*"))
	return left
}

// Running returns the processes (/proc/<pid>/cmdline) whose command line
// holds marker: a test gives its processes a marker of their own, such
// as an odd sleep time, to find them.
func Running(marker string) []string {
	var found []string
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})), marker) {
			found = append(found, p)
		}
	}
	return found
}

// StillRunning returns Running(marker) once it is empty or wait (Patience
// when 0) has passed: a process killed a moment ago may take the kernel a
// moment to end, many moments on a loaded machine.
func StillRunning(marker string, wait time.Duration) []string {
	var left []string
	Within(wait, func() bool {
		left = Running(marker)
		return len(left) == 0
	})
	return left
}

// CancelCapsules are the roost entries of the cancel tests, as name,
// manifest pairs for WriteRoost: local/polite ends on SIGTERM, saying
// "bye"; local/stubborn ignores it. Both print "started" (WaitStarted)
// and sleep for the seconds given, so that a test finds its own processes
// by their command lines.
func CancelCapsules(sleepPolite, sleepStubborn string) []string {
	return []string{
		"local/polite", `{"name": "local/polite", "entrypoint": {"command": ["sh", "-c", "trap 'echo bye; exit 0' TERM; echo started; sleep ` + sleepPolite + ` & wait"]}}`,
		"local/stubborn", `{"name": "local/stubborn", "entrypoint": {"command": ["sh", "-c", "trap '' TERM; echo started; exec sleep ` + sleepStubborn + `"]}}`,
	}
}

// WaitStarted waits (Patience) until n sub-capsules of the session
// directory sess have printed "started" (CancelCapsules' commands run,
// their TERM traps set); the test fails when they do not.
func WaitStarted(t testing.TB, sess string, n int) {
	t.Helper()
	Eventually(t, 0, fmt.Sprintf("%d sub-capsules of %s to start", n, sess), func() bool {
		ready := 0
		answers, _ := filepath.Glob(filepath.Join(sess, sessionfmt.DelegationsDir, "*", "answer.txt"))
		for _, a := range answers {
			if b, _ := os.ReadFile(a); strings.HasPrefix(string(b), "started") {
				ready++
			}
		}
		return ready == n
	})
}
