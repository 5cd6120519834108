package main

// The world the attack tests of attack_privs_linux_test.go run in: the
// attacker binary, a working directory with the files to keep, a process
// outside the plan, planc as root or as nobody in a delegated cgroup, and
// the controls.

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/planc/planc/host/sandbox"
	"github.com/planc/planc/host/sandbox/cgroups"
	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/vm"
)

var (
	attackerOnce sync.Once
	attackerPath string
	attackerErr  error
)

// attackerBin builds testdata/attacker once, beside the planc binary
// (where an unprivileged user can run it).
func attackerBin(t *testing.T) string {
	t.Helper()
	bin := plancBin(t)
	attackerOnce.Do(func() {
		attackerPath = filepath.Join(filepath.Dir(bin), "attacker")
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

	// More for the attacks on the whole protected set (attackSet): more
	// targets beside the plan and the secret (those that exist before the
	// run must keep their bytes), protected directories, shell words to
	// allow, variables for planc's environment, and more checks after
	// the run.
	targets, dirs, allow, env []string
	after                     func(t *testing.T)
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
	testkit.WriteFiles(t, dir, "guarded/secret.txt", secretBytes)
	if conf.nonRoot {
		for _, p := range []string{dir, filepath.Dir(w.secret), w.secret} {
			if err := os.Chown(p, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}
	}
	w.holder = strconv.Itoa(startHolder(t, w.attacker, w.secret, conf.nonRoot))
	return w
}

// startHolder starts a process outside the plan that holds path open for
// writing, as planc holds its trace, and returns its pid once it does.
func startHolder(t *testing.T, attacker, path string, nonRoot bool) int {
	t.Helper()
	hold := exec.Command(attacker, "hold", path)
	if nonRoot {
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
	return hold.Process.Pid
}

// config is the attacker's attack.json for the world's targets.
func (w *attackWorld) config(t *testing.T, cgroup string) {
	t.Helper()
	b, _ := json.Marshal(map[string]any{
		"targets": append([]string{w.plan, w.secret}, w.targets...), "dirs": w.dirs, "dir": w.dir,
		"pids": []int{atoi(w.holder), os.Getpid()}, "cgroups": []string{cgroup},
		"marker": w.marker, "self": w.attacker,
	})
	testkit.WriteFiles(t, w.dir, "attack.json", string(b))
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
		name := "evil" + strconv.Itoa(i+1)
		if class, ok := strings.CutPrefix(s, "capsule:"); ok {
			roost = append(roost, "roost/local/"+name+"/capsule.json", fmt.Sprintf(
				`{"name": "local/%s", "entrypoint": {"command": [%q, %q]}}`, name, w.attacker, class))
			step["capsule"], step["input"] = name, "attack"
		} else if class, ok := strings.CutPrefix(s, "capsule-plan:"); ok {
			// A sub-capsule whose plan runs the attacker as its own step.
			roost = append(roost, "roost/local/"+name+"/capsule.json", fmt.Sprintf(
				`{"name": "local/%s", "capabilities": {"shell": {"allow": [%q]}}, "entrypoint": {"plan": "plan.json"}}`, name, w.attacker),
				"roost/local/"+name+"/plan.json", fmt.Sprintf(`{"id": "sub", "steps": [{"id": "a", "shell": %q}]}`, w.attacker+" "+class))
			step["capsule"], step["input"] = name, "attack"
		} else {
			step["shell"] = w.expand(s)
		}
		plan.Steps = append(plan.Steps, step)
	}
	planJSON, _ := json.Marshal(plan)
	var spawn []string
	for i := 0; i+1 < len(roost); i += 2 {
		if filepath.Base(roost[i]) == "capsule.json" {
			spawn = append(spawn, "local/"+filepath.Base(filepath.Dir(roost[i])))
		}
	}
	spawnJSON, _ := json.Marshal(spawn)
	allowJSON, _ := json.Marshal(append([]string{w.attacker, "sh"}, w.allow...))
	testkit.WriteFiles(t, w.dir, append([]string{"plan.json", string(planJSON), "capsule.json", fmt.Sprintf(`{
		"name": "local/attack",
		"capabilities": {"plan": {"submit": true},
			"shell": {"allow": %s}, "spawn": {"allow": %s},
			"filesystem": {"read_only": ["guarded"]}}
	}`, allowJSON, spawnJSON)}, roost...)...)
	kept := map[string][]byte{}
	for _, p := range w.targets {
		if b, err := os.ReadFile(p); err == nil {
			kept[p] = b
		}
	}
	r := w.exec(t)
	if r.code != 0 {
		t.Errorf("planc exit %d; want 0 (every attack blocked):\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, s := range r.report(t).Steps {
		out := deref(s.Output)
		t.Logf("%s: %s %s\n%s", s.StepID, s.Status, deref(s.Error), out)
		if s.Status != vm.StatusSuccess || strings.Contains(out, "ESCAPED") || !strings.Contains(out, "blocked") {
			t.Errorf("step %s: %s, %s; want every attempt blocked:\n%s", s.StepID, s.Status, deref(s.Error), out)
		}
	}
	w.checkIntact(t, planJSON)
	for p, b := range kept {
		if now, err := os.ReadFile(p); err != nil || string(now) != string(b) {
			t.Errorf("%s: %q, %v; want its bytes before the run, %q", p, now, err, b)
		}
	}
	if w.after != nil {
		w.after(t)
	}
	if left := testkit.Running(w.marker); len(left) > 0 {
		t.Errorf("processes of the plan outlived planc: %v", left)
	}
}

// exec runs `planc run` of the world's plan.json under its capsule.json
// as w.conf says, planc's user owning the world first; it skips t when
// protection is off for an unprivileged planc, and fails it when it is
// off for root.
func (w *attackWorld) exec(t *testing.T) runOut {
	t.Helper()
	if w.conf.nonRoot {
		// What planc's user owns it could change but for the protection.
		filepath.WalkDir(w.dir, func(p string, _ fs.DirEntry, err error) error {
			if err == nil {
				os.Lchown(p, 65534, 65534)
			}
			return nil
		})
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
	return r
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
	cmd.Env = append(append(os.Environ(), sandbox.EnvLock+"="+w.conf.lock), w.env...)
	own, err := cgroups.OwnDir()
	if err != nil {
		t.Fatal(err)
	}
	if !w.conf.nonRoot {
		w.config(t, own)
		return cmd, func() {}
	}
	deleg, fd, done := testkit.DelegatedCgroup(t, own)
	w.config(t, deleg)
	asNobody(cmd)
	cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, fd
	return cmd, done
}

// attackControl runs the attacker's class with -control, as root, against
// copies of the targets that it protects with a bare read-only bind while
// keeping every privilege: the attack must get through, which shows it is
// a real one on this kernel.
func attackControl(t *testing.T, class string) {
	dir := t.TempDir()
	plan, secret := filepath.Join(dir, "plan-1.json"), filepath.Join(dir, "secret.txt")
	testkit.WriteFiles(t, dir, "plan-1.json", "{}", "secret.txt", secretBytes)
	bin := attackerBin(t)
	holder := startHolder(t, bin, secret, false)
	b, _ := json.Marshal(map[string]any{
		"targets": []string{plan, secret}, "dir": dir, "pids": []int{holder}, "self": bin,
	})
	testkit.WriteFiles(t, dir, "attack.json", string(b))
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
