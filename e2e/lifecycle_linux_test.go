package e2e

// Nothing outlives planc, through the planc binary: a plan whose shell
// step and whose sub-capsule's command leave setsid'd and double-forked
// processes behind is ended by SIGKILL of planc, by a step that kills
// planc, and by SIGKILL of planc and its guardian together; as root, as
// uid 65534 in a delegated cgroup (protected through a user namespace),
// and as uid 65534 where the kernel gives it no user namespace
// (protection off: no spawner, no PID namespace, the guardian alone).

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/planc/planc/host/sandbox/cgroups"
	"github.com/planc/planc/internal/testkit"
)

// lifeConf is one way planc runs for these tests.
type lifeConf struct {
	name    string
	nonRoot bool // uid 65534 in a delegated cgroup
	off     bool // and without a user namespace: protection is off
}

// lifeWorld is one run under test: its directory, session, marker and
// the cgroup planc runs in.
type lifeWorld struct {
	conf          lifeConf
	dir, sess     string
	mark          string // every sleep of the plan is `sleep MARK.N`
	cgroup, deleg string // planc's cgroup; the delegated one ("" as root)
	cgroupFD      int
}

// TestKilledPlancLeavesNothing: after planc's death by SIGKILL or by its
// own step, no process of the plan is left 10 s later, the sub-capsule's
// trace ends with spawner_ended and it has no completion.json, and the
// next planc start finds no scope of the dead run. When the guardian is
// killed with planc, the next planc start ends and removes what is left.
func TestKilledPlancLeavesNothing(t *testing.T) {
	testkit.NeedScope(t)
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root: to run planc as root, and as an unprivileged user with a delegated cgroup")
	}
	confs := []lifeConf{{"root", false, false}, {"nonroot", true, false}}
	if _, err := exec.LookPath("setpriv"); err == nil {
		if _, err := exec.LookPath("unshare"); err == nil {
			confs = append(confs, lifeConf{"nonroot-off", true, true})
		}
	}
	for _, conf := range confs {
		for _, killer := range []string{"sigkill", "step", "guardian-too"} {
			t.Run(conf.name+"/"+killer, func(t *testing.T) {
				t.Parallel()
				newLifeWorld(t, conf).run(t, killer)
			})
		}
	}
}

// lifeSeq numbers the worlds.
var lifeSeq atomic.Int64

func newLifeWorld(t *testing.T, conf lifeConf) *lifeWorld {
	t.Helper()
	dir := t.TempDir()
	for d := dir; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		os.Chmod(d, 0o755) // nobody must reach it
	}
	w := &lifeWorld{conf: conf, dir: dir, sess: filepath.Join(dir, "sess"), cgroupFD: -1,
		mark: fmt.Sprintf("6%04d%02d", os.Getpid()%10000, lifeSeq.Add(1))}
	daemons := func(n int) string {
		return fmt.Sprintf(`setsid sleep %[1]s.%[2]d1 >/dev/null 2>&1 & (sh -c "sleep %[1]s.%[2]d2 >/dev/null 2>&1 &" &); `, w.mark, n)
	}
	testkit.WriteFiles(t, dir,
		"capsule.json", `{"name": "local/life", "capabilities": {"plan": {"submit": true},
			"shell": {"allow": ["sh", "sleep", "true"]}, "spawn": {"allow": ["local/daemons"]}}}`,
		"roost/local/daemons/capsule.json", fmt.Sprintf(`{"name": "local/daemons", "entrypoint": {"command": ["sh", "-c", %q]}}`,
			daemons(2)+"echo started; exec sleep "+w.mark+".23"),
		"next.json", `{"id": "next", "steps": [{"id": "a", "shell": "true"}]}`,
	)
	own, err := cgroups.OwnDir()
	if err != nil {
		t.Fatal(err)
	}
	w.cgroup = own
	if conf.nonRoot {
		var done func()
		w.deleg, w.cgroupFD, done = testkit.DelegatedCgroup(t, own)
		w.cgroup = w.deleg
		t.Cleanup(done)
	}
	return w
}

// writePlan writes plan.json: a shell step and a sub-capsule, each
// leaving daemons, and, for killer "step", a step that kills planc once
// the test has written planc's pid to planc.pid.
func (w *lifeWorld) writePlan(t *testing.T, killer string) {
	steps := []string{
		fmt.Sprintf(`{"id": "a", "shell": %q}`, fmt.Sprintf(
			`sh -c 'setsid sleep %[1]s.11 >/dev/null 2>&1 & (sh -c "sleep %[1]s.12 >/dev/null 2>&1 &" &); exec sleep %[1]s.13'`, w.mark)),
		`{"id": "c", "capsule": "daemons", "input": "go"}`,
	}
	if killer == "step" {
		// $PPID is planc when steps run without protection, and the
		// spawner, process 1 of the steps' PID namespace, when they run
		// with it.
		steps = append(steps,
			`{"id": "k", "shell": "sh -c 'while [ ! -s planc.pid ]; do sleep 0.05; done; kill -9 $PPID; echo $? > kill.rc; kill -9 $(cat planc.pid); echo $? >> kill.rc'"}`,
			`{"id": "after", "depends_on": ["k"], "shell": "sh -c 'echo ran > after.txt'"}`)
	}
	testkit.WriteFiles(t, w.dir, "plan.json", `{"id": "life", "steps": [`+strings.Join(steps, ",\n")+`]}`)
	if w.conf.nonRoot {
		filepath.Walk(w.dir, func(p string, _ os.FileInfo, _ error) error { return os.Chown(p, 65534, 65534) })
	}
}

// plancCmd returns `planc run` of plan with session sess under w.conf.
func (w *lifeWorld) plancCmd(t *testing.T, sess, plan string) *exec.Cmd {
	t.Helper()
	cmd := plancCmd(t, w.dir, "--capsule", "capsule.json", "--roost", "roost", "--session", sess, plan)
	if !w.conf.nonRoot {
		return cmd
	}
	if w.conf.off {
		// As in TestProtectionOffNonRoot: nobody makes a user namespace
		// in which it is root, forbids any more, and runs planc there
		// with no capability left.
		script := `echo 0 > /proc/sys/user/max_user_namespaces && exec "$0" --bounding-set=-all --inh-caps=-all -- "$@"`
		unshare, _ := exec.LookPath("unshare")
		setpriv, _ := exec.LookPath("setpriv")
		cmd.Args = append([]string{"unshare", "--user", "--map-root-user", "sh", "-c", script, setpriv, plancBin(t)}, cmd.Args[1:]...)
		cmd.Path = unshare
	}
	testkit.AsNobody(cmd)
	cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, w.cgroupFD
	return cmd
}

// sleeps returns the plan's sleep processes that run.
func (w *lifeWorld) sleeps() []string {
	var found []string
	for _, p := range testkit.Running(w.mark) {
		b, _ := os.ReadFile(p)
		if args := strings.Split(string(b), "\x00"); len(args) > 1 && args[0] == "sleep" && strings.HasPrefix(args[1], w.mark+".") {
			found = append(found, args[1])
		}
	}
	slices.Sort(found)
	return found
}

func (w *lifeWorld) run(t *testing.T, killer string) {
	w.writePlan(t, killer)
	cmd := w.plancCmd(t, w.sess, "plan.json")
	// A file, not a pipe: it is read while planc runs.
	se, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer se.Close()
	stderr := func() string { b, _ := os.ReadFile(se.Name()); return string(b) }
	cmd.Stderr = se
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	if !testkit.Within(0, func() bool { return len(w.sleeps()) >= 6 }) {
		t.Fatalf("the plan's processes did not all start: %v\n%s", w.sleeps(), stderr())
	}
	off := strings.Contains(stderr(), "protection of plan files")
	if off != w.conf.off {
		t.Fatalf("protection off: %v, want %v: %s", off, w.conf.off, stderr())
	}
	scope := filepath.Join(w.cgroup, "planc-"+testkit.SessionID(t, w.sess)+"-1")
	switch killer {
	case "sigkill":
		cmd.Process.Signal(syscall.SIGKILL)
	case "guardian-too":
		w.killGuardian(t, cmd, scope)
	case "step":
		w.stepKills(t, cmd, exited)
	}
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Fatal("planc did not end")
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("planc ended with %v; want SIGKILL", waitErr)
	}
	died := time.Now()

	if killer != "guardian-too" {
		// testkit.Running(mark) finds the shells, shims and sleeps of the
		// plan; the session's path, planc and its sub-capsule.
		for _, m := range []string{w.mark, w.sess} {
			if left := testkit.StillRunning(m, 10*time.Second-time.Since(died)); len(left) > 0 {
				t.Errorf("10 s after planc's death, processes with %q remain: %v", m, cmdlines(left))
			}
		}
		// The guardian removes the scope.
		gone := func() bool { _, err := os.Stat(scope); return os.IsNotExist(err) }
		if !testkit.Within(max(10*time.Second-time.Since(died), time.Millisecond), gone) {
			_, err := os.Stat(scope)
			t.Errorf("10 s after planc's death, its scope %s is still there (%v)", scope, err)
		}
	} else if left := testkit.StillRunning(w.sess, 10*time.Second); len(left) > 0 {
		t.Errorf("the sub-capsule did not end: %v", cmdlines(left))
	}
	d := filepath.Join(w.sess, "delegations", "plan-1-c-1")
	if ev := capsuleEvents(t, filepath.Join(d, "trace.jsonl")); len(ev) == 0 || ev[len(ev)-1] != "spawner_ended" {
		t.Errorf("the sub-capsule's trace: %v; want it to end with spawner_ended", ev)
	}
	if _, err := os.Stat(filepath.Join(d, "completion.json")); err == nil {
		t.Errorf("the sub-capsule has a completion.json")
	}

	// The next planc start in the same cgroup finds no scope of the dead
	// run: its guardian removed it, or (guardian-too) the sweep does.
	next := w.plancCmd(t, filepath.Join(w.dir, "next-sess"), "next.json")
	if out, err := next.CombinedOutput(); err != nil {
		t.Fatalf("the next planc: %v\n%s", err, out)
	}
	if _, err := os.Stat(scope); !os.IsNotExist(err) {
		t.Errorf("the dead run's scope %s is still there after the next planc (%v)", scope, err)
	}
	if left := testkit.StillRunning(w.mark, 0); len(left) > 0 {
		t.Errorf("processes of the dead run remain after the next planc: %v", cmdlines(left))
	}
}

// killGuardian kills planc's guardian and planc together: the guardian is
// stopped first, so that it does nothing when planc dies.
func (w *lifeWorld) killGuardian(t *testing.T, cmd *exec.Cmd, scope string) {
	t.Helper()
	buf := make([]byte, 64)
	n, err := unix.Getxattr(scope, "user.planc.guard", buf)
	if err != nil {
		t.Fatalf("the scope's guard record: %v", err)
	}
	pid, _ := strconv.Atoi(strings.Fields(string(buf[:n]))[0])
	if b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); !strings.Contains(string(b), "-guard") {
		t.Fatalf("process %d is no guardian: %q", pid, b)
	}
	unix.Kill(pid, unix.SIGSTOP)
	cmd.Process.Signal(syscall.SIGKILL)
	unix.Kill(pid, unix.SIGKILL)
}

// stepKills hands planc's pid to the plan's killer step, which kills its
// parent and then planc. Where steps are protected they see neither
// planc nor anything outside: the kernel drops the SIGKILL to the spawner,
// the kill of planc's pid finds no such process, and the plan goes on (its
// next step runs through the same spawner) until the test kills planc.
// Otherwise the step kills planc.
func (w *lifeWorld) stepKills(t *testing.T, cmd *exec.Cmd, exited <-chan struct{}) {
	t.Helper()
	testkit.WriteFiles(t, w.dir, "planc.pid", strconv.Itoa(cmd.Process.Pid))
	if w.conf.off {
		return
	}
	ended := false
	ran := testkit.Within(0, func() bool {
		if b, _ := os.ReadFile(filepath.Join(w.dir, "after.txt")); string(b) == "ran\n" {
			return true
		}
		select {
		case <-exited:
			ended = true
			return true
		default:
			return false
		}
	})
	switch {
	case ended:
		t.Fatalf("planc ended when a protected step tried to kill it")
	case !ran:
		t.Fatal("the step after the killer did not run")
	}
	if b, _ := os.ReadFile(filepath.Join(w.dir, "kill.rc")); len(strings.Fields(string(b))) != 2 || strings.Fields(string(b))[1] == "0" {
		t.Errorf("the killer step's exit statuses: %q; want the kill of planc's pid to fail", b)
	}
	cmd.Process.Signal(syscall.SIGKILL)
}

// cmdlines reads the command lines of the /proc/PID/cmdline paths.
func cmdlines(paths []string) []string {
	var out []string
	for _, p := range paths {
		b, _ := os.ReadFile(p)
		out = append(out, p+": "+strings.ReplaceAll(string(b), "\x00", " "))
	}
	return out
}
