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
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planc/planc/host/sandbox"
	"github.com/planc/planc/host/sandbox/cgroups"

	"github.com/planc/planc/internal/testkit"
)

// TestAttackMountSetattr: clearing MOUNT_ATTR_RDONLY on the protecting
// bind fails, and so does the write after it.
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
	lock    string // sandbox.EnvLock's value
}

// attackConfs returns the ways planc runs here: root and not, under each
// lock the kernel offers.
func attackConfs(t *testing.T) []attackConf {
	t.Helper()
	testkit.NeedScope(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root: to run planc as root, and as an unprivileged user with a delegated cgroup")
	}
	var confs []attackConf
	for _, nonRoot := range []bool{false, true} {
		who := "root"
		if nonRoot {
			who = "nonroot"
		}
		if sandbox.LandlockABI() >= 1 {
			confs = append(confs, attackConf{who + "/landlock", nonRoot, ""})
		}
		confs = append(confs, attackConf{who + "/caps", nonRoot, "caps"})
	}
	return confs
}

// attack runs the steps (shell steps, or "capsule:CLASS" for a capsule
// whose command runs the attacker's CLASS, or "capsule-plan:CLASS" for one
// whose plan runs it as a shell step) in one plan under every
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

// TestProtectionOffNonRoot: where the kernel gives an unprivileged planc
// no user namespace, planc says so in one line on standard error, naming
// what is off and why, and the plan still runs (the step refusals
// stand). planc runs here as uid 0 of a user namespace (uid 65534
// outside) without any capability, in a cgroup delegated to it, and that
// namespace allows no more user namespaces.
func TestProtectionOffNonRoot(t *testing.T) {
	testkit.NeedScope(t)
	setpriv, err := exec.LookPath("setpriv")
	unshare, err2 := exec.LookPath("unshare")
	if os.Geteuid() != 0 || err != nil || err2 != nil {
		t.Skip("needs root, setpriv and unshare: to run planc without privileges in a delegated cgroup")
	}
	own, err := cgroups.OwnDir()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for d := dir; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		os.Chmod(d, 0o755)
	}
	testkit.WriteFiles(t, dir, "capsule.json", shellCapsule, "plan.json", `{"id": "off", "steps": [{"id": "a", "shell": "echo ran"}]}`)
	for _, p := range []string{dir, filepath.Join(dir, "capsule.json"), filepath.Join(dir, "plan.json")} {
		os.Chown(p, 65534, 65534)
	}
	_, fd, done := testkit.DelegatedCgroup(t, own)
	defer done()
	// nobody makes a user namespace in which it is root, forbids any
	// more, and runs planc there with no capability left.
	script := `echo 0 > /proc/sys/user/max_user_namespaces && exec "$0" --bounding-set=-all --inh-caps=-all -- "$@"`
	cmd := plancCmd(t, dir, "--capsule", "capsule.json", "plan.json")
	cmd.Args = append([]string{"unshare", "--user", "--map-root-user", "sh", "-c", script, setpriv, plancBin(t)}, cmd.Args[1:]...)
	cmd.Path = unshare
	asNobody(cmd)
	cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, fd
	var so, se strings.Builder
	cmd.Stdout, cmd.Stderr = &so, &se
	r := runOut{"", "", exitCode(t, cmd.Run())}
	r.stdout, r.stderr = so.String(), se.String()
	const want = "planc run: protection of plan files and read_only paths is off: planc runs as uid 0 without CAP_SYS_ADMIN, " +
		"and an unprivileged user namespace with a private mount namespace could not be set up: " +
		"user.max_user_namespaces allows no more user namespaces; only the step refusals guard them\n"
	if r.code != 0 || r.stderr != want {
		t.Fatalf("exit %d, stderr:\n%s\nwant:\n%s\nstdout:\n%s", r.code, r.stderr, want, r.stdout)
	}
	if s := r.report(t).Steps; len(s) != 1 || deref(s[0].Output) != "ran\n" {
		t.Fatalf("steps %+v", s)
	}
}
