package main

// The attacks on a step's protection that need privileges to make, each
// run as a real attack through `planc run` on this kernel: the attacker
// (testdata/attacker, a small Go program built here, since most of these
// system calls have no command-line tool) runs as a shell step that the
// capsule allows, as root and as an unprivileged user with a delegated
// cgroup, under each lock, and the plan file and a read_only file must
// keep their bytes. Where an attack is one on a bare read-only bind, a
// control first shows that it defeats one on this kernel when the
// attacker keeps root's privileges.

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/planc/planc/host/shell"
)

// TestAttackMountSetattr: clearing MOUNT_ATTR_RDONLY on the protecting
// bind (the first attack) fails, so the write after it does.
func TestAttackMountSetattr(t *testing.T) {
	attack(t, "mount-setattr", "{attacker} mount-setattr")
}

// TestAttackOpenTree: a detached clone of the working directory's mount,
// without the binds beneath it or with them made writable, writes
// nothing.
func TestAttackOpenTree(t *testing.T) {
	attack(t, "open-tree", "{attacker} open-tree")
}

// TestAttackNewMountAPI: fsopen, fsconfig, fsmount, fspick and move_mount
// neither move a bind away, nor mount the disk anew, nor cover a target.
func TestAttackNewMountAPI(t *testing.T) {
	attack(t, "fsmount", "{attacker} fsmount")
}

// TestAttackUmount: unmounting a bind, with umount2 and with umount(8),
// fails.
func TestAttackUmount(t *testing.T) {
	attack(t, "umount", "{attacker} umount", "sh -c 'umount -l {plan}; umount -l {secret}; umount {secret}; {attacker} write'")
}

// TestAttackRemount: remounting a bind read-write, with mount(2) and
// mount(8), and mounting the disk anew, fail.
func TestAttackRemount(t *testing.T) {
	attack(t, "remount", "{attacker} remount", "sh -c 'mount -o remount,rw,bind {plan}; mount -o remount,rw {secret}; {attacker} write'")
}

// TestAttackUnshare: a new mount namespace, by unshare(1) or by the
// system call, or inside a user namespace made with clone3 (which seccomp
// cannot filter by flag), undoes no bind.
func TestAttackUnshare(t *testing.T) {
	attack(t, "", "{attacker} userns",
		"sh -c 'unshare -m sh -c \"umount -l {plan}; {attacker} write\"; unshare -U -r -m sh -c \"umount -l {plan}; {attacker} write\"; {attacker} write'")
}

// TestAttackSetns: entering the mount namespace of a process outside the
// plan (setns, nsenter(1)) fails.
func TestAttackSetns(t *testing.T) {
	attack(t, "setns", "{attacker} setns", "sh -c 'nsenter -t 1 -m {attacker} write; nsenter -t {holder} -m {attacker} write; {attacker} write'")
}

// TestAttackProcRoot: /proc/PID/root and /proc/PID/fd of planc, of the
// spawner and of any process outside reach no protected file.
func TestAttackProcRoot(t *testing.T) {
	attack(t, "proc", "{attacker} proc")
}

// TestAttackOpenByHandle: reopening a protected file by its handle
// through a writable mount fails.
func TestAttackOpenByHandle(t *testing.T) {
	attack(t, "handle", "{attacker} handle")
}

// TestAttackPtrace: ptrace of, and pidfd_getfd from, a process outside
// that holds a protected file open for writing fail.
func TestAttackPtrace(t *testing.T) {
	attack(t, "ptrace", "{attacker} ptrace")
}

// TestAttackLeaveScope: a step cannot move itself, nor clone a child,
// into a cgroup above the plan's scope; nothing it starts outlives planc.
func TestAttackLeaveScope(t *testing.T) {
	attack(t, "", "{attacker} cgroup")
}

// TestAttackCapsuleCommand: a capsule's command entrypoint is a step like
// a shell step: it writes neither its parent's plan file nor its parent's
// read_only paths, and undoes nothing.
func TestAttackCapsuleCommand(t *testing.T) {
	attack(t, "", "capsule:write", "capsule:mount-setattr", "capsule:umount")
}

// attackConf is one way planc runs for the attack tests.
type attackConf struct {
	name    string
	nonRoot bool   // planc runs as uid 65534 in a delegated cgroup
	lock    string // shell.EnvLock's value
}

// attackConfs returns the ways planc runs here: root and not, under each
// lock the kernel offers.
func attackConfs(t *testing.T) []attackConf {
	t.Helper()
	needScope(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root: to run planc as root, and as an unprivileged user with a delegated cgroup")
	}
	var confs []attackConf
	for _, nonRoot := range []bool{false, true} {
		who := "root"
		if nonRoot {
			who = "nonroot"
		}
		if shell.LandlockABI() >= 1 {
			confs = append(confs, attackConf{who + "/landlock", nonRoot, ""})
		}
		confs = append(confs, attackConf{who + "/caps", nonRoot, "caps"})
	}
	return confs
}

// attack runs the steps (shell steps, or "capsule:CLASS" for a capsule
// whose command runs the attacker's CLASS) in one plan under every
// attackConf, after the control of class when class is not "".
func attack(t *testing.T, class string, steps ...string) {
	confs := attackConfs(t)
	if class != "" {
		t.Run("control", func(t *testing.T) { attackControl(t, class) })
	}
	for _, conf := range confs {
		t.Run(conf.name, func(t *testing.T) {
			w := newAttackWorld(t, conf)
			w.run(t, steps)
		})
	}
}

var (
	attackerOnce sync.Once
	attackerPath string
	attackerErr  error
)

// attackerBin builds testdata/attacker once, beside the planc binary
// (where an unprivileged user can run it).
func attackerBin(t *testing.T) string {
	t.Helper()
	needBinary(t)
	attackerOnce.Do(func() {
		attackerPath = filepath.Join(filepath.Dir(plancBin), "attacker")
		out, err := exec.Command("go", "build", "-o", attackerPath, "./testdata/attacker").CombinedOutput()
		if err != nil {
			attackerErr = fmt.Errorf("building the attacker: %v\n%s", err, out)
		}
	})
	if attackerErr != nil {
		t.Fatal(attackerErr)
	}
	return attackerPath
}

// attackSeq numbers the worlds and cgroups the attack tests make.
var attackSeq atomic.Int64

// attackWorld is one working directory under attack: a read_only file
// and the plan file to keep, and a process outside that holds the
// read_only file open for writing.
type attackWorld struct {
	conf                     attackConf
	dir, sess, plan, secret  string
	marker, holder, attacker string
}

const secretBytes = "the secret's original bytes\n"

// asNobody makes cmd run as uid and gid 65534.
func asNobody(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Credential = &syscall.Credential{Uid: 65534, Gid: 65534}
}

func newAttackWorld(t *testing.T, conf attackConf) *attackWorld {
	t.Helper()
	dir := t.TempDir()
	for d := dir; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		os.Chmod(d, 0o755) // nobody must reach it
	}
	n := strconv.FormatInt(attackSeq.Add(1), 10)
	w := &attackWorld{
		conf: conf, dir: dir, sess: filepath.Join(dir, "sess"),
		secret:   filepath.Join(dir, "guarded", "secret.txt"),
		marker:   "planc-attack-linger-" + strconv.Itoa(os.Getpid()) + "-" + n,
		attacker: attackerBin(t),
	}
	w.plan = filepath.Join(w.sess, "plans", "plan-1.json")
	write(t, dir, "guarded/secret.txt", secretBytes)
	if conf.nonRoot {
		for _, p := range []string{dir, filepath.Dir(w.secret), w.secret} {
			if err := os.Chown(p, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}
	}
	// A process outside the plan, holding a protected file open for
	// writing as planc holds its trace.
	hold := exec.Command(w.attacker, "hold", w.secret)
	if conf.nonRoot {
		asNobody(hold)
	}
	out, err := hold.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := hold.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hold.Process.Kill(); hold.Wait() })
	b := make([]byte, 8)
	if n, _ := out.Read(b); string(b[:n]) != "holding\n" {
		t.Fatal("the holder did not start")
	}
	w.holder = strconv.Itoa(hold.Process.Pid)
	return w
}

// config is the attacker's attack.json for the world's targets.
func (w *attackWorld) config(t *testing.T, cgroup string) {
	t.Helper()
	b, _ := json.Marshal(map[string]any{
		"targets": []string{w.plan, w.secret}, "dir": w.dir,
		"pids": []int{atoi(w.holder), os.Getpid()}, "cgroups": []string{cgroup},
		"marker": w.marker, "self": w.attacker,
	})
	write(t, w.dir, "attack.json", string(b))
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// expand fills a step's {placeholders}.
func (w *attackWorld) expand(s string) string {
	return strings.NewReplacer("{attacker}", w.attacker, "{plan}", w.plan, "{secret}", w.secret, "{holder}", w.holder).Replace(s)
}

// run runs steps as one plan under w.conf and checks that every step
// ran, that every attack was blocked, that the protected files kept
// their bytes and that nothing of the plan outlived planc.
func (w *attackWorld) run(t *testing.T, steps []string) {
	t.Helper()
	var plan struct {
		ID    string           `json:"id"`
		Steps []map[string]any `json:"steps"`
	}
	plan.ID = "attack"
	var roost []string
	for i, s := range steps {
		step := map[string]any{"id": "s" + strconv.Itoa(i+1), "on_error": "continue"}
		if class, ok := strings.CutPrefix(s, "capsule:"); ok {
			name := "evil" + strconv.Itoa(i+1)
			roost = append(roost, "roost/local/"+name+"/capsule.json", fmt.Sprintf(
				`{"name": "local/%s", "entrypoint": {"command": [%q, %q]}}`, name, w.attacker, class))
			step["capsule"], step["input"] = name, "attack"
		} else {
			step["shell"] = w.expand(s)
		}
		plan.Steps = append(plan.Steps, step)
	}
	planJSON, _ := json.Marshal(plan)
	var spawn []string
	for i := 0; i+1 < len(roost); i += 2 {
		spawn = append(spawn, "local/"+filepath.Base(filepath.Dir(roost[i])))
	}
	spawnJSON, _ := json.Marshal(spawn)
	write(t, w.dir, append([]string{"plan.json", string(planJSON), "capsule.json", fmt.Sprintf(`{
		"name": "local/attack",
		"capabilities": {"plan": {"submit": true},
			"shell": {"allow": [%q, "sh"]}, "spawn": {"allow": %s},
			"filesystem": {"read_only": ["guarded"]}}
	}`, w.attacker, spawnJSON)}, roost...)...)
	if w.conf.nonRoot {
		for _, f := range []string{"plan.json", "capsule.json", "attack.json"} {
			os.Chown(filepath.Join(w.dir, f), 65534, 65534)
		}
	}

	cmd, cleanup := w.plancCmd(t)
	var so, se strings.Builder
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	cleanup()
	r := runOut{so.String(), se.String(), exitCode(t, err)}
	if strings.Contains(r.stderr, "protection of plan files") {
		if w.conf.nonRoot {
			t.Skipf("this kernel gives an unprivileged planc no protection: %s", r.stderr)
		}
		t.Fatalf("protection is off for root: %s", r.stderr)
	}
	if r.code != 0 {
		t.Errorf("planc exit %d; want 0 (every attack blocked):\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, s := range r.report(t).Steps {
		out := deref(s.Output)
		t.Logf("%s: %s %s\n%s", s.StepID, s.Status, deref(s.Error), out)
		if s.Status != "success" || strings.Contains(out, "ESCAPED") || !strings.Contains(out, "blocked") {
			t.Errorf("step %s: %s, %s; want every attempt blocked:\n%s", s.StepID, s.Status, deref(s.Error), out)
		}
	}
	w.checkIntact(t, planJSON)
	if left := marked(w.marker); len(left) > 0 {
		t.Errorf("processes of the plan outlived planc: %v", left)
	}
}

// checkIntact fails t unless the plan file and the read_only file hold
// their bytes.
func (w *attackWorld) checkIntact(t *testing.T, planJSON []byte) {
	t.Helper()
	if b, err := os.ReadFile(w.plan); err != nil || string(b) != string(planJSON) {
		t.Errorf("the plan file: %q, %v; want the plan's bytes", b, err)
	}
	if b, err := os.ReadFile(w.secret); err != nil || string(b) != secretBytes {
		t.Errorf("the read_only file: %q, %v; want %q", b, err, secretBytes)
	}
}

// plancCmd returns `planc run` of the world's plan as w.conf says, and
// what to call once it has run. As nobody, planc runs in a cgroup
// delegated to it, made here and removed by cleanup.
func (w *attackWorld) plancCmd(t *testing.T) (*exec.Cmd, func()) {
	t.Helper()
	cmd := plancCmd(t, w.dir, "--session", w.sess, "--capsule", "capsule.json", "plan.json")
	cmd.Env = append(os.Environ(), shell.EnvLock+"="+w.conf.lock)
	own, err := shell.OwnCgroupDir()
	if err != nil {
		t.Fatal(err)
	}
	if !w.conf.nonRoot {
		w.config(t, own)
		return cmd, func() {}
	}
	deleg, fd, done := delegatedCgroup(t, own)
	w.config(t, deleg)
	asNobody(cmd)
	cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, fd
	return cmd, done
}

// delegatedCgroup makes a cgroup under own delegated to uid 65534, and
// opens it for CLONE_INTO_CGROUP; done closes it, checks that planc left
// no scope in it, and removes it.
func delegatedCgroup(t *testing.T, own string) (dir string, fd int, done func()) {
	t.Helper()
	deleg := filepath.Join(own, "planc-attack-"+strconv.Itoa(os.Getpid())+"-"+strconv.FormatInt(attackSeq.Add(1), 10))
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
				clearCgroup(d)
			}
		}
		if err := clearCgroup(deleg); err != nil {
			t.Errorf("removing the delegated cgroup: %v", err)
		}
	}
}

// clearCgroup kills what runs in the cgroup dir and removes it and the
// cgroups beneath it.
func clearCgroup(dir string) error {
	os.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1"), 0)
	subs, _ := os.ReadDir(dir)
	for _, s := range subs {
		if s.IsDir() {
			clearCgroup(filepath.Join(dir, s.Name()))
		}
	}
	var err error
	for range 100 {
		if err = syscall.Rmdir(dir); err != syscall.EBUSY {
			break
		}
		syscall.Nanosleep(&syscall.Timespec{Nsec: 10e6}, nil)
	}
	if err == syscall.ENOENT {
		return nil
	}
	return err
}

// attackControl runs the attacker's class with -control, as root, against
// copies of the targets that it protects with a bare read-only bind while
// keeping every privilege: the attack must get through, which shows it is
// a real one on this kernel.
func attackControl(t *testing.T, class string) {
	dir := t.TempDir()
	plan, secret := filepath.Join(dir, "plan-1.json"), filepath.Join(dir, "secret.txt")
	write(t, dir, "plan-1.json", "{}", "secret.txt", secretBytes)
	bin := attackerBin(t)
	hold := exec.Command(bin, "hold", secret)
	if err := hold.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hold.Process.Kill(); hold.Wait() })
	b, _ := json.Marshal(map[string]any{
		"targets": []string{plan, secret}, "dir": dir, "pids": []int{hold.Process.Pid}, "self": bin,
	})
	write(t, dir, "attack.json", string(b))
	cmd := exec.Command(bin, "-control", class)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	t.Logf("control:\n%s", out)
	if code := exitCode(t, err); code != 3 || !strings.Contains(string(out), "ESCAPED") {
		t.Fatalf("control exit %d; want 3: the attack does not defeat a bare read-only bind here:\n%s", code, out)
	}
	p, _ := os.ReadFile(plan)
	s, _ := os.ReadFile(secret)
	if string(p) == "{}" && string(s) == secretBytes {
		t.Fatal("the control escaped but changed no byte")
	}
}

// TestProtectionOffNonRoot: where the kernel gives an unprivileged planc
// no user namespace, planc says so in one line on standard error, naming
// what is off and why, and the plan still runs (the step refusals
// stand). planc runs here as uid 0 of a user namespace (uid 65534
// outside) without any capability, in a cgroup delegated to it, and that
// namespace allows no more user namespaces.
func TestProtectionOffNonRoot(t *testing.T) {
	needScope(t)
	setpriv, err := exec.LookPath("setpriv")
	unshare, err2 := exec.LookPath("unshare")
	if os.Geteuid() != 0 || err != nil || err2 != nil {
		t.Skip("needs root, setpriv and unshare: to run planc without privileges in a delegated cgroup")
	}
	own, err := shell.OwnCgroupDir()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for d := dir; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		os.Chmod(d, 0o755)
	}
	write(t, dir, "capsule.json", shellCapsule, "plan.json", `{"id": "off", "steps": [{"id": "a", "shell": "echo ran"}]}`)
	for _, p := range []string{dir, filepath.Join(dir, "capsule.json"), filepath.Join(dir, "plan.json")} {
		os.Chown(p, 65534, 65534)
	}
	_, fd, done := delegatedCgroup(t, own)
	defer done()
	// nobody makes a user namespace in which it is root, forbids any
	// more, and runs planc there with no capability left.
	script := `echo 0 > /proc/sys/user/max_user_namespaces && exec "$0" --bounding-set=-all --inh-caps=-all -- "$@"`
	cmd := plancCmd(t, dir, "--capsule", "capsule.json", "plan.json")
	cmd.Args = append([]string{"unshare", "--user", "--map-root-user", "sh", "-c", script, setpriv, plancBin}, cmd.Args[1:]...)
	cmd.Path = unshare
	asNobody(cmd)
	cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, fd
	var so, se strings.Builder
	cmd.Stdout, cmd.Stderr = &so, &se
	r := runOut{"", "", exitCode(t, cmd.Run())}
	r.stdout, r.stderr = so.String(), se.String()
	const want = "planc run: protection of plan files and read_only paths is off: planc runs as uid 0 without CAP_SYS_ADMIN, " +
		"and an unprivileged user namespace with a private mount namespace could not be set up " +
		"(user.max_user_namespaces allows no more user namespaces); only the step refusals guard them\n"
	if r.code != 0 || r.stderr != want {
		t.Fatalf("exit %d, stderr:\n%s\nwant:\n%s\nstdout:\n%s", r.code, r.stderr, want, r.stdout)
	}
	if s := r.report(t).Steps; len(s) != 1 || deref(s[0].Output) != "ran\n" {
		t.Fatalf("steps %+v", s)
	}
}
