package sandbox

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/planc/planc/host/sandbox/cgroups"
	"golang.org/x/sys/unix"
)

// The guardian and the sweep, through the Go API: a helper process (this
// test binary as `__owner`) opens a scope, starts steps that leave
// setsid'd and double-forked processes and a stand-in sub-capsule (this
// binary as `__capsule`), and is killed with SIGKILL.

// ownerCommand is the helper that owns a scope for these tests.
const ownerCommand = "__owner"

// markSeq numbers the markers of these tests.
var markSeq atomic.Int64

// marker returns a sleep time no other test here or elsewhere uses, for
// finding the processes of one test by their command lines.
func marker() string {
	return fmt.Sprintf("7%04d%02d", os.Getpid()%10000, markSeq.Add(1))
}

// ownerMain is `__owner NAME MARK CAPSULE-SECONDS CAPSULE-DONE-FILE`: it
// opens the scope NAME, runs a step without protection (so no spawner:
// the guardian alone ends it) that leaves `sleep MARK.1` setsid'd and
// `sleep MARK.2` double-forked behind `sleep MARK.3`, starts a stand-in
// sub-capsule in a capsule leaf, prints the scope's directory when all
// runs, and waits to be killed.
func ownerMain(args []string) int {
	s, err := OpenScope(args[0])
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	m := args[1]
	go s.Run(context.Background(), Spec{Argv: []string{"sh", "-c", fmt.Sprintf(
		"setsid sleep %[1]s.1 >/dev/null 2>&1 & (sh -c 'sleep %[1]s.2 >/dev/null 2>&1 &' &); exec sleep %[1]s.3", m)}})
	self, _ := os.Executable()
	cmd := exec.Command(self, CapsuleCommand, args[2], args[3], m+".4")
	if _, err := s.StartProcess(cmd, "capsule"); err != nil {
		fmt.Println("error:", err)
		return 1
	}
	for deadline := time.Now().Add(60 * time.Second); len(running("sleep "+m+".")) < 3 || len(running(m+".4")) < 1; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			fmt.Println("error: the steps did not start")
			return 1
		}
	}
	fmt.Println(s.Dir())
	select {}
}

// capsuleMain is the stand-in sub-capsule, `__capsule SECONDS FILE MARK`:
// it writes FILE after SECONDS, as a sub-capsule winds down, and exits.
func capsuleMain(args []string) int {
	d, _ := time.ParseDuration(args[0] + "s")
	time.Sleep(d)
	os.WriteFile(args[1], []byte("wound down\n"), 0o644)
	return 0
}

// running returns the command lines of the processes that hold sub: a
// marker (all of a test's processes), "sleep MARK." (its steps' sleeps)
// or MARK.4 (its stand-in sub-capsule).
func running(sub string) []string {
	var found []string
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		s := strings.ReplaceAll(string(b), "\x00", " ")
		if err == nil && strings.Contains(s, sub) {
			found = append(found, strings.TrimSpace(s))
		}
	}
	return found
}

// runningAfter returns running(sub) once it is empty or wait has passed.
func runningAfter(mark string, wait time.Duration) []string {
	deadline := time.Now().Add(wait)
	for {
		left := running(mark)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// startOwner starts the helper and returns it and its scope once all of
// its processes run; capsuleSecs is how long its sub-capsule winds down.
func startOwner(t *testing.T, mark string, capsuleSecs string) (*exec.Cmd, string, string) {
	t.Helper()
	if err := Probe(); err != nil {
		t.Skipf("no delegated cgroup v2 scope on this machine: %v", err)
	}
	done := filepath.Join(t.TempDir(), "capsule-done")
	name := testPrefix + "owner-" + strconv.FormatInt(scopeSeq.Add(1), 10)
	cmd := exec.Command("/proc/self/exe", ownerCommand, name, mark, capsuleSecs, done)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if left := runningAfter(mark, 10*time.Second); len(left) > 0 {
			t.Errorf("left running: %q", left)
		}
	})
	line, _ := bufio.NewReader(out).ReadString('\n')
	dir := strings.TrimSpace(line)
	if !strings.HasPrefix(dir, "/") {
		t.Fatalf("the owner: %q", line)
	}
	return cmd, dir, done
}

// waitGone waits up to wait for dir to be removed.
func waitGone(t *testing.T, dir string, wait time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(wait); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(dir); os.IsNotExist(err) {
			return
		}
	}
	t.Errorf("%s is still there %v later", dir, wait)
}

// TestGuardEndsScope: planc killed with SIGKILL while a step runs without
// a spawner and a sub-capsule winds down: the guardian kills the step's
// setsid'd and double-forked processes at once, lets the sub-capsule end
// on its own, then removes the scope, all well within 10 s.
func TestGuardEndsScope(t *testing.T) {
	mark := marker()
	owner, dir, done := startOwner(t, mark, "1")
	if rec, ok := cgroups.ReadRecord(dir, cgroups.XattrOwner); !ok || rec[0] != strconv.Itoa(owner.Process.Pid) {
		t.Errorf("owner record %q; want pid %d", rec, owner.Process.Pid)
	}
	start := time.Now()
	owner.Process.Signal(syscall.SIGKILL)
	owner.Wait()
	// The sub-capsule winds down for 1 s: the steps are killed before.
	if left := runningAfter("sleep "+mark+".", 700*time.Millisecond); len(left) > 0 {
		t.Errorf("the steps' processes outlived their planc: %q", left)
	}
	if len(running(mark+".4")) == 0 {
		if _, err := os.Stat(done); err != nil {
			t.Errorf("the sub-capsule was killed with the steps")
		}
	}
	waitGone(t, dir, 10*time.Second)
	if b, err := os.ReadFile(done); err != nil || string(b) != "wound down\n" {
		t.Errorf("the sub-capsule did not wind down: %q, %v", b, err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the scope lasted %v after its planc", d)
	}
}

// TestGuardBoundsSubCapsule: a sub-capsule that does not wind down is
// killed guardWait after planc's end.
func TestGuardBoundsSubCapsule(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the guardian's bound")
	}
	mark := marker()
	owner, dir, done := startOwner(t, mark, "60")
	owner.Process.Signal(syscall.SIGKILL)
	owner.Wait()
	start := time.Now()
	waitGone(t, dir, guardWait+3*time.Second)
	if d := time.Since(start); d < guardWait-time.Second {
		t.Errorf("the sub-capsule was killed %v after planc; want about %v", d, guardWait)
	}
	if _, err := os.Stat(done); err == nil {
		t.Errorf("the stand-in sub-capsule was not killed")
	}
}

// TestCloseEndsGuard: a scope closed in the ordinary way ends its
// guardian, which is reaped.
func TestCloseEndsGuard(t *testing.T) {
	s := openTestScope(t)
	pid := s.sys.guard.cmd.Process.Pid
	if rec, ok := cgroups.ReadRecord(s.Dir(), cgroups.XattrGuard); !ok || rec[0] != strconv.Itoa(pid) {
		t.Errorf("guard record %q; want pid %d", rec, pid)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := unix.Kill(pid, 0); err != unix.ESRCH {
		t.Errorf("the guardian %d: %v after Close; want it reaped", pid, err)
	}
}

// TestSweep: a planc that opens a scope removes the scopes in its cgroup
// whose planc and guardian are gone, killing what they hold, and leaves
// every other one.
func TestSweep(t *testing.T) {
	if err := Probe(); err != nil {
		t.Skipf("no delegated cgroup v2 scope on this machine: %v", err)
	}
	own, err := cgroups.OwnDir()
	if err != nil {
		t.Fatal(err)
	}
	dead := deadRecord(t)
	self, err := cgroups.ProcRecord(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	ns, _ := os.Readlink("/proc/self/ns/pid")
	mark := marker()
	cases := []struct {
		name         string
		owner, guard string // records; "" for none
		sleep        bool   // a process in a step leaf
		swept        bool
	}{
		{"dead", dead + " " + ns, dead, false, true},
		{"dead-no-guard-record", dead + " " + ns, "", false, true},
		{"dead-with-process", dead + " " + ns, dead, true, true},
		{"owner-alive", self + " " + ns, dead, false, false},
		{"guard-alive", dead + " " + ns, self, false, false},
		{"no-record", "", "", false, false},
		{"other-pid-namespace", dead + " pid:[1]", dead, false, false},
		{"pid-reused", strings.Fields(self)[0] + " 1 " + ns, dead, false, true},
	}
	dirs := make([]string, len(cases))
	for i, c := range cases {
		dir := filepath.Join(own, testPrefix+"sweep-"+strconv.FormatInt(scopeSeq.Add(1), 10)+"-"+c.name)
		dirs[i] = dir
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cgroups.Remove(dir) })
		for name, rec := range map[string]string{cgroups.XattrOwner: c.owner, cgroups.XattrGuard: c.guard} {
			if rec != "" {
				if err := unix.Setxattr(dir, name, []byte(rec), 0); err != nil {
					t.Fatal(err)
				}
			}
		}
		if c.sleep {
			startIn(t, filepath.Join(dir, "step-1"), exec.Command("setsid", "sleep", mark+".1"))
		}
	}
	s := openTestScope(t) // sweeps
	for i, c := range cases {
		_, err := os.Stat(dirs[i])
		if swept := os.IsNotExist(err); swept != c.swept {
			t.Errorf("%s: swept %v, want %v", c.name, swept, c.swept)
		}
	}
	if left := runningAfter(mark, 2*time.Second); len(left) > 0 {
		t.Errorf("left running: %q", left)
	}
	if _, err := os.Stat(s.Dir()); err != nil {
		t.Errorf("the new scope: %v", err)
	}
}

// TestSweepAdopts: a scope whose planc and guardian are gone while a
// sub-capsule still winds down in it gets a new guardian, which waits for
// the sub-capsule (until guardWait after the scope was first found
// orphaned) and then removes the scope.
func TestSweepAdopts(t *testing.T) {
	for _, c := range []struct {
		name   string
		secs   string        // how long the sub-capsule winds down
		since  time.Duration // how long ago the scope was found orphaned
		woundD bool
	}{
		{"winds-down", "1", 0, true},
		{"grace-passed", "60", guardWait, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			mark := marker()
			owner, dir, done := startOwner(t, mark, c.secs)
			// The guardian goes first, with SIGSTOP so that it keeps its
			// pid until its planc is gone too.
			rec, ok := cgroups.ReadRecord(dir, cgroups.XattrGuard)
			if !ok {
				t.Fatal("no guard record")
			}
			g, _ := strconv.Atoi(rec[0])
			unix.Kill(g, unix.SIGSTOP)
			owner.Process.Signal(syscall.SIGKILL)
			owner.Wait()
			unix.Kill(g, unix.SIGKILL)
			for deadline := time.Now().Add(time.Minute); !cgroups.Ended(rec) && time.Now().Before(deadline); {
				time.Sleep(10 * time.Millisecond)
			}
			if len(running("sleep "+mark+".1")) == 0 {
				// A sweep by a concurrent test (they share the parent
				// cgroup) may have adopted the scope already: it marks
				// the scope ended before it winds the steps down. Only
				// steps gone without that mark are a failure.
				if _, err := unix.Getxattr(dir, cgroups.XattrEnded, make([]byte, 64)); err != nil {
					t.Fatal("the steps ended with their planc and guardian")
				}
			}
			// Backdated only now: a sweep by a concurrent test (they share
			// the parent cgroup) must not find the grace passed before the
			// check above.
			if c.since > 0 {
				unix.Setxattr(dir, cgroups.XattrEnded, []byte(strconv.FormatInt(time.Now().Add(-c.since).UnixNano(), 10)), 0)
			}
			openTestScope(t) // sweeps
			if c.woundD {
				if _, err := os.Stat(dir); err != nil {
					t.Errorf("the scope was swept while its sub-capsule wound down: %v", err)
				}
			}
			waitGone(t, dir, time.Minute)
			if _, err := os.Stat(done); (err == nil) != c.woundD {
				t.Errorf("the sub-capsule wound down: %v; want %v", err == nil, c.woundD)
			}
		})
	}
}

// deadRecord returns the "PID START" record of a process that has ended.
func deadRecord(t *testing.T) string {
	t.Helper()
	cmd := exec.Command("sleep", "10")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	rec, err := cgroups.ProcRecord(cmd.Process.Pid)
	cmd.Process.Kill()
	cmd.Wait()
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// startIn starts cmd in the new cgroup dir and reaps it in the background.
func startIn(t *testing.T, dir string, cmd *exec.Cmd) {
	t.Helper()
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: fd}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go cmd.Wait()
}

// The cost of a scope: OpenScope (the sweep, the cgroup, the owner record
// and the guardian's start) and Close (which kills and reaps the
// guardian). Run with
//
//	go test -run '^$' -bench ScopeOpenClose -benchtime 200x ./host/sandbox
func BenchmarkScopeOpenClose(b *testing.B) {
	if err := Probe(); err != nil {
		b.Skipf("no delegated cgroup v2 scope on this machine: %v", err)
	}
	for b.Loop() {
		s, err := OpenScope(testPrefix + "bench-" + strconv.FormatInt(scopeSeq.Add(1), 10))
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
