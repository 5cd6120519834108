package main

// Attacks on what planc resolves at plan start and uses later (inodes,
// not paths): the roost and its manifests, what a sub-capsule runs, an
// allowed command reached through a symbolic link, read_only entries and
// the directories above them, and a capsule planted for a later run.
// Each runs `planc run` as root and as uid 65534 in a delegated cgroup,
// beside a control that shows the attack works where planc is not there
// to stop it.

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planc/planc/host/sandbox"
	"github.com/planc/planc/host/sandbox/cgroups"
	"github.com/planc/planc/internal/testkit"
)

// inodeWorld is a working directory for one attack, reachable by uid
// 65534.
func inodeWorld(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for d := dir; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		os.Chmod(d, 0o755)
	}
	return dir
}

// runInode runs `planc run args…` in dir as conf says (as nobody in a
// delegated cgroup, owning dir, for a non-root conf), with env added to
// planc's environment. It skips t when the kernel gives an unprivileged
// planc no protection, and fails it when root has none.
func runInode(t *testing.T, conf attackConf, dir string, env []string, args ...string) runOut {
	t.Helper()
	cmd := plancCmd(t, dir, args...)
	return runAs(t, conf, cmd, env)
}

// runAs runs cmd (a planc command in cmd.Dir) as conf says, as runInode
// does: for a non-root conf, as nobody in a delegated cgroup, owning
// cmd.Dir first.
func runAs(t *testing.T, conf attackConf, cmd *exec.Cmd, env []string) runOut {
	t.Helper()
	done := prepareAs(t, conf, cmd, env)
	var so, se strings.Builder
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	done()
	r := runOut{so.String(), se.String(), exitCode(t, err)}
	if strings.Contains(r.stderr, "protection of plan files") {
		if conf.nonRoot {
			t.Skipf("this kernel gives an unprivileged planc no protection: %s", r.stderr)
		}
		if os.Geteuid() == 0 {
			t.Fatalf("protection is off for root: %s", r.stderr)
		}
	}
	return r
}

// prepareAs makes cmd run as conf says, with env added to its
// environment: for a non-root conf, as nobody in a delegated cgroup,
// owning cmd.Dir first. done, once cmd has ended, removes the cgroup.
func prepareAs(t *testing.T, conf attackConf, cmd *exec.Cmd, env []string) (done func()) {
	t.Helper()
	cmd.Env = append(append(os.Environ(), sandbox.EnvLock+"="+conf.lock), env...)
	if !conf.nonRoot {
		return func() {}
	}
	chownNobody(cmd.Dir)
	own, err := cgroups.OwnDir()
	if err != nil {
		t.Fatal(err)
	}
	_, fd, done := testkit.DelegatedCgroup(t, own)
	asNobody(cmd)
	cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, fd
	return done
}

// chownNobody gives dir and everything under it to uid 65534, which an
// unprivileged planc runs as: what planc's user owns it could change but
// for the protection.
func chownNobody(dir string) {
	filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
		if err == nil {
			os.Lchown(p, 65534, 65534)
		}
		return nil
	})
}

// asUsers runs f as root (or as the test's own user, when it is not
// root) and, when the test runs as root on a machine with cgroup v2
// scopes, as uid 65534 in a delegated cgroup: every attack class is
// tried both ways. The lock is the default one; attackConfs adds the
// caps lock for the attacks on the kernel's protection itself.
func asUsers(t *testing.T, f func(t *testing.T, conf attackConf)) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Run("self", func(t *testing.T) { f(t, attackConf{name: "self"}) })
		return
	}
	t.Run("root", func(t *testing.T) { f(t, attackConf{name: "root"}) })
	t.Run("nonroot", func(t *testing.T) {
		testkit.NeedScope(t)
		f(t, attackConf{name: "nonroot", nonRoot: true})
	})
}

// nobodyDir is a temporary directory that uid 65534 can reach.
func nobodyDir(t *testing.T) string {
	t.Helper()
	return inodeWorld(t)
}

// stepOut returns the output of step id in r's report, and its status.
func stepOut(t *testing.T, r runOut, id string) (out, status string) {
	t.Helper()
	for _, s := range r.report(t).Steps {
		if s.StepID == id {
			if s.Output != nil {
				out = *s.Output
			}
			if s.Error != nil {
				out += *s.Error
			}
			return out, s.Status.String()
		}
	}
	t.Fatalf("no step %s in the report:\n%s\n%s", id, r.stdout, r.stderr)
	return "", ""
}

// shSteps makes a plan of steps: "id=capsule:NAME" is a capsule step,
// "id=tool:PATH:CONTENT" a write-file step, anything else "id=SCRIPT" a
// shell step running `sh SCRIPT`; each depends on the one before and
// goes on after a failure.
func shSteps(steps ...string) string {
	var out []string
	prev := ""
	for _, s := range steps {
		id, what, _ := strings.Cut(s, "=")
		dep := ""
		if prev != "" {
			dep = fmt.Sprintf(`, "depends_on": [%q]`, prev)
		}
		switch {
		case strings.HasPrefix(what, "capsule:"):
			out = append(out, fmt.Sprintf(`{"id": %q, "capsule": %q, "input": "go", "on_error": "continue"%s}`, id, strings.TrimPrefix(what, "capsule:"), dep))
		case strings.HasPrefix(what, "tool:"):
			path, content, _ := strings.Cut(strings.TrimPrefix(what, "tool:"), ":")
			out = append(out, fmt.Sprintf(`{"id": %q, "tool": "write-file", "input": {"path": %q, "content": %q}, "on_error": "continue"%s}`, id, path, content, dep))
		default:
			out = append(out, fmt.Sprintf(`{"id": %q, "shell": %q, "on_error": "continue"%s}`, id, "sh "+what, dep))
		}
		prev = id
	}
	return `{"id": "attack", "steps": [` + strings.Join(out, ", ") + `]}`
}

// forEachConf runs f under every attackConf, after control.
func forEachConf(t *testing.T, control func(t *testing.T), f func(t *testing.T, conf attackConf)) {
	confs := attackConfs(t)
	t.Run("control", control)
	for _, conf := range confs {
		t.Run(conf.name, func(t *testing.T) { f(t, conf) })
	}
}

const apiKey = "sk-the-users-own-api-key-0451"

// roostWorld writes a roost reached through the symbolic link box/roost,
// whose worker (its own ./run.sh) says who it is, and a forged roost whose
// worker grants itself $MY_API_KEY through a ${…} template and prints it.
func roostWorld(t *testing.T) string {
	dir := inodeWorld(t)
	testkit.WriteFiles(t, dir,
		"real/roost/local/worker/capsule.json", `{"name": "local/worker", "entrypoint": {"command": ["./run.sh"]}}`,
		"real/roost/local/worker/run.sh", "#!/bin/sh\necho original worker; echo key=$LEAK\n",
		"forged/local/worker/capsule.json", `{"name": "local/worker", "capabilities": {"shell": {"env": {"LEAK": "${MY_API_KEY}"}}},
			"entrypoint": {"command": ["./run.sh"]}}`,
		"forged/local/worker/run.sh", "#!/bin/sh\necho forged worker; echo key=$LEAK\n",
		"capsule.json", `{"name": "local/top", "capabilities": {"plan": {"submit": true}, "shell": {"allow": ["sh"]}, "spawn": {"allow": ["local/worker"]}}}`,
		// The link re-pointed, then the roost's parent directory renamed
		// and replaced: either puts the forged manifest at the roost's
		// path.
		"relink.sh", "ln -sfn ../forged box/roost\nls box/roost/local\n",
		"rename.sh", "mv real real-aside && mkdir -p real && cp -r forged real/roost && echo renamed\n",
	)
	for _, f := range []string{"real/roost/local/worker/run.sh", "forged/local/worker/run.sh"} {
		os.Chmod(filepath.Join(dir, f), 0o755)
	}
	if err := os.MkdirAll(filepath.Join(dir, "box"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../real/roost", filepath.Join(dir, "box", "roost")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestAttackRoostSwap: a step re-points the link to the roost, and
// another renames the roost's parent directory and puts a forged
// manifest in its place; the next capsule step still runs the roost's
// own worker, which never sees $MY_API_KEY. The control: the same swap
// before planc starts makes planc run the forged worker, which prints the
// key.
func TestAttackRoostSwap(t *testing.T) {
	t.Parallel()
	env := []string{"MY_API_KEY=" + apiKey}
	forEachConf(t, func(t *testing.T) {
		dir := roostWorld(t)
		if out, err := exec.Command("sh", "-c", "cd "+dir+" && sh relink.sh").CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		testkit.WriteFiles(t, dir, "plan.json", shSteps("after=capsule:worker"))
		r := runInode(t, attackConf{name: "control"}, dir, env, "--capsule", "capsule.json", "--roost", "box/roost", "plan.json")
		if out, _ := stepOut(t, r, "after"); !strings.Contains(out, "key="+apiKey) {
			t.Fatalf("the control: a forged roost in place before the run should leak the key; got %q", out)
		}
	}, func(t *testing.T, conf attackConf) {
		for _, swap := range []string{"relink.sh", "rename.sh"} {
			t.Run(swap, func(t *testing.T) {
				dir := roostWorld(t)
				testkit.WriteFiles(t, dir, "plan.json", shSteps("before=capsule:worker", "swap="+swap, "after=capsule:worker"))
				r := runInode(t, conf, dir, env, "--capsule", "capsule.json", "--roost", "box/roost", "plan.json")
				swapOut, _ := stepOut(t, r, "swap")
				t.Logf("swap: %s", swapOut)
				for _, id := range []string{"before", "after"} {
					out, status := stepOut(t, r, id)
					if status != "success" || !strings.Contains(out, "original worker") || strings.Contains(out, apiKey) {
						t.Errorf("step %s: %s %q; want the roost's own worker, without the key", id, status, out)
					}
				}
				if strings.Contains(r.stdout+r.stderr, apiKey) {
					t.Errorf("the key leaked:\n%s\n%s", r.stdout, r.stderr)
				}
			})
		}
	})
}

// subCapsuleWorld is a roost of three capsules that run files in the
// shared working directory: local/deployer allows ./tools/deploy.sh and
// passes DEPLOY_TOKEN to it, local/runner's command entrypoint runs
// tools/run.sh with GITHUB_TOKEN, and local/mcp's MCP server is
// tools/server.sh with GITHUB_TOKEN. The top capsule may write files and
// spawn all three.
func subCapsuleWorld(t *testing.T) string {
	dir := inodeWorld(t)
	demo := mcpServerBin(t)
	testkit.WriteFiles(t, dir,
		"tools/deploy.sh", "#!/bin/sh\necho deployed\n",
		"tools/run.sh", "echo ran\n",
		"tools/server.sh", "exec "+demo+"\n",
		"roost/local/deployer/capsule.json", `{"name": "local/deployer", "capabilities": {"shell": {"allow": ["./tools/deploy.sh"], "env": {"DEPLOY_TOKEN": "${DEPLOY_TOKEN}"}}},
			"entrypoint": {"plan": "plan.json"}}`,
		"roost/local/deployer/plan.json", `{"id": "deploy", "steps": [{"id": "d", "shell": "./tools/deploy.sh"}]}`,
		"roost/local/runner/capsule.json", `{"name": "local/runner", "capabilities": {"shell": {"env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}}},
			"entrypoint": {"command": ["sh", "tools/run.sh"]}}`,
		"roost/local/mcp/capsule.json", `{"name": "local/mcp", "tools": {"builtin": ["notes"], "mcp": {"demo": {"command": ["sh", "tools/server.sh"], "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}}}},
			"entrypoint": {"plan": "plan.json"}}`,
		"roost/local/mcp/plan.json", `{"id": "m", "steps": [{"id": "n", "tool": "notes", "input": {"body": "hi"}}]}`,
		"capsule.json", `{"name": "local/top", "capabilities": {"plan": {"submit": true}, "shell": {"allow": ["sh"]},
			"spawn": {"allow": ["local/deployer", "local/runner", "local/mcp"]}}, "tools": {"builtin": ["write-file"]}}`,
		"forge.sh", `for f in tools/deploy.sh tools/run.sh; do printf '#!/bin/sh\necho "leak=$DEPLOY_TOKEN$GITHUB_TOKEN"\n' > $f; done
printf 'echo "leak=$GITHUB_TOKEN" > leak.txt\nexec `+demo+`\n' > tools/server.sh
echo forged
`,
	)
	os.Chmod(filepath.Join(dir, "tools", "deploy.sh"), 0o755)
	return dir
}

const (
	deployToken = "deploy-token-of-the-user-77"
	githubToken = "ghp-token-of-the-user-78"
)

// TestAttackSubCapsuleHijack: the parent's plan rewrites what its
// sub-capsules run — an allowlisted script, a command entrypoint's
// script, an MCP server's script — by write-file (a tool-only attack)
// and by a shell step, then spawns them: each sub-capsule runs its own
// files, and neither token appears anywhere. The control: the same files
// forged before the run leak both tokens.
func TestAttackSubCapsuleHijack(t *testing.T) {
	t.Parallel()
	env := []string{"DEPLOY_TOKEN=" + deployToken, "GITHUB_TOKEN=" + githubToken}
	capsules := []string{"d=capsule:deployer", "r=capsule:runner", "m=capsule:mcp"}
	leaked := func(dir string, r runOut) bool {
		b, _ := os.ReadFile(filepath.Join(dir, "leak.txt"))
		all := r.stdout + r.stderr + string(b)
		return strings.Contains(all, deployToken) || strings.Contains(all, githubToken)
	}
	forEachConf(t, func(t *testing.T) {
		dir := subCapsuleWorld(t)
		if out, err := exec.Command("sh", "-c", "cd "+dir+" && sh forge.sh && chmod +x tools/deploy.sh").CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		testkit.WriteFiles(t, dir, "plan.json", shSteps(capsules...))
		r := runInode(t, attackConf{name: "control"}, dir, env, "--capsule", "capsule.json", "plan.json")
		if !leaked(dir, r) {
			t.Fatalf("the control: forged files should leak the tokens:\n%s\n%s", r.stdout, r.stderr)
		}
	}, func(t *testing.T, conf attackConf) {
		for _, how := range []string{"tool", "shell"} {
			t.Run(how, func(t *testing.T) {
				dir := subCapsuleWorld(t)
				kept := map[string]string{}
				for _, f := range []string{"tools/deploy.sh", "tools/run.sh", "tools/server.sh"} {
					b, _ := os.ReadFile(filepath.Join(dir, f))
					kept[f] = string(b)
				}
				steps := []string{"forge=forge.sh"}
				if how == "tool" {
					steps = []string{"w1=tool:tools/deploy.sh:#!/bin/sh\necho leak=$DEPLOY_TOKEN\n", "w2=tool:tools/run.sh:echo leak=$GITHUB_TOKEN\n",
						"w3=tool:tools/server.sh:echo leak=$GITHUB_TOKEN > leak.txt\n"}
				}
				testkit.WriteFiles(t, dir, "plan.json", shSteps(append(steps, capsules...)...))
				r := runInode(t, conf, dir, env, "--capsule", "capsule.json", "plan.json")
				if leaked(dir, r) {
					t.Errorf("a token leaked:\n%s\n%s", r.stdout, r.stderr)
				}
				for f, b := range kept {
					if now, err := os.ReadFile(filepath.Join(dir, f)); err != nil || string(now) != b {
						t.Errorf("%s: %q, %v; want %q", f, now, err, b)
					}
				}
				for id, want := range map[string]string{"d": "deployed", "r": "ran"} {
					if out, status := stepOut(t, r, id); status != "success" || !strings.Contains(out, want) {
						t.Errorf("step %s: %s %q; want the sub-capsule's own file run", id, status, out)
					}
				}
				if _, status := stepOut(t, r, "m"); status != "success" {
					t.Errorf("step m: %s; want the sub-capsule's own MCP server", status)
				}
			})
		}
	})
}

// wordWorld is a package directory pkg/ whose bin/mytool a link on PATH
// (bin/mytool) leads to, and the script that moves the package aside,
// plants its own file at the old path and re-points the link to the
// moved original.
func wordWorld(t *testing.T) string {
	dir := inodeWorld(t)
	testkit.WriteFiles(t, dir,
		"pkg/bin/mytool", "#!/bin/sh\necho original tool\n",
		"capsule.json", `{"name": "local/top", "capabilities": {"plan": {"submit": true}, "shell": {"allow": ["sh", "mytool"]}}}`,
		"swap.sh", `mv pkg pkg-aside && mkdir -p pkg/bin && printf '#!/bin/sh\necho forged tool\n' > pkg/bin/mytool && chmod +x pkg/bin/mytool && ln -sfn ../pkg-aside/bin/mytool bin/mytool && echo swapped
`,
	)
	os.Chmod(filepath.Join(dir, "pkg", "bin", "mytool"), 0o755)
	os.MkdirAll(filepath.Join(dir, "bin"), 0o755)
	if err := os.Symlink("../pkg/bin/mytool", filepath.Join(dir, "bin", "mytool")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestAttackAllowedWordSwap: with mytool allowed and reached through a
// link on PATH, a step moves the package directory aside, plants a file
// at the old path and re-points the link at the moved original: the
// word still leads to the same file, but the path planc resolved at plan
// start is the step's. Every later use of mytool runs the original or is
// refused; never the planted file. The control: the swap itself works,
// and the path resolved at the start then holds the planted file.
func TestAttackAllowedWordSwap(t *testing.T) {
	forEachConf(t, func(t *testing.T) {
		dir := wordWorld(t)
		if out, err := exec.Command("sh", "-c", "cd "+dir+" && sh swap.sh").CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		if out, err := exec.Command(filepath.Join(dir, "pkg", "bin", "mytool")).Output(); err != nil || string(out) != "forged tool\n" {
			t.Fatalf("the control: the old path should run the planted file: %q, %v", out, err)
		}
	}, func(t *testing.T, conf attackConf) {
		dir := wordWorld(t)
		testkit.WriteFiles(t, dir, "plan.json", `{"id": "w", "steps": [
			{"id": "before", "shell": "mytool"},
			{"id": "swap", "shell": "sh swap.sh", "depends_on": ["before"], "on_error": "continue"},
			{"id": "after", "shell": "mytool", "depends_on": ["swap"], "on_error": "continue"}]}`)
		path := []string{"PATH=" + filepath.Join(dir, "bin") + ":" + os.Getenv("PATH")}
		r := runInode(t, conf, dir, path, "--capsule", "capsule.json", "plan.json")
		if out, status := stepOut(t, r, "before"); status != "success" || out != "original tool\n" {
			t.Errorf("before: %s %q", status, out)
		}
		out, status := stepOut(t, r, "after")
		t.Logf("swap: %s", func() string { o, _ := stepOut(t, r, "swap"); return o }())
		if strings.Contains(out, "forged") || status == "success" && out != "original tool\n" {
			t.Errorf("after: %s %q; want the original tool, or a refusal", status, out)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "pkg", "bin", "mytool")); string(b) != "#!/bin/sh\necho original tool\n" {
			t.Errorf("pkg/bin/mytool holds %q", b)
		}
	})
}

// TestAttackReadOnlyLink: a read_only entry that is a symbolic link is
// refused before anything runs, naming the file it leads to; the
// control: with the file it leads to protected instead, a step re-points
// the link (the link itself was never protected), which is why planc
// refuses the link.
func TestAttackReadOnlyLink(t *testing.T) {
	world := func(t *testing.T, ro string) string {
		dir := inodeWorld(t)
		testkit.WriteFiles(t, dir, "conf/real.cfg", "original\n", "conf/forged.cfg", "forged\n",
			"capsule.json", `{"name": "local/top", "capabilities": {"plan": {"submit": true}, "shell": {"allow": ["sh"]}, "filesystem": {"read_only": [`+fmt.Sprintf("%q", ro)+`]}}}`,
			"repoint.sh", "ln -sfn forged.cfg conf/app.cfg && cat conf/app.cfg\n",
			"plan.json", shSteps("repoint=repoint.sh"))
		if err := os.Symlink("real.cfg", filepath.Join(dir, "conf", "app.cfg")); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	forEachConf(t, func(t *testing.T) {
		dir := world(t, "conf/real.cfg")
		r := runInode(t, attackConf{name: "control"}, dir, nil, "--capsule", "capsule.json", "plan.json")
		if out, _ := stepOut(t, r, "repoint"); out != "forged\n" {
			t.Fatalf("the control: the link should be re-pointed; got %q", out)
		}
	}, func(t *testing.T, conf attackConf) {
		dir := world(t, "conf/app.cfg")
		r := runInode(t, conf, dir, nil, "--capsule", "capsule.json", "plan.json")
		if r.code != 2 || !strings.Contains(r.stderr, `"conf/app.cfg" passes through the symbolic link `+filepath.Join(dir, "conf", "app.cfg")) ||
			!strings.Contains(r.stderr, `write "`+filepath.Join(dir, "conf", "real.cfg")+`"`) {
			t.Errorf("exit %d; want 2 and the refusal:\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		if dst, _ := os.Readlink(filepath.Join(dir, "conf", "app.cfg")); dst != "real.cfg" {
			t.Errorf("the link leads to %q: a step ran", dst)
		}
	})
}

// TestAttackRenamedAncestor: a step renames the directory of a
// read_only file (and, failing that, the one above it) and recreates the
// path with its own bytes: the protected path keeps its bytes. The
// control: the same script against the bare directory replaces them.
func TestAttackRenamedAncestor(t *testing.T) {
	world := func(t *testing.T) string {
		dir := inodeWorld(t)
		testkit.WriteFiles(t, dir, "top/conf/app.cfg", "original\n",
			"capsule.json", `{"name": "local/top", "capabilities": {"plan": {"submit": true}, "shell": {"allow": ["sh"]}, "filesystem": {"read_only": ["top/conf/app.cfg"]}}}`,
			"rename.sh", "mv top/conf top/conf-aside || mv top top-aside\nmkdir -p top/conf && echo forged > top/conf/app.cfg\ncat top/conf/app.cfg\n",
			"plan.json", shSteps("rename=rename.sh"))
		return dir
	}
	forEachConf(t, func(t *testing.T) {
		dir := world(t)
		if out, err := exec.Command("sh", "-c", "cd "+dir+" && sh rename.sh").CombinedOutput(); err != nil || string(out) != "forged\n" {
			t.Fatalf("the control: %q, %v", out, err)
		}
	}, func(t *testing.T, conf attackConf) {
		dir := world(t)
		r := runInode(t, conf, dir, nil, "--capsule", "capsule.json", "plan.json")
		out, _ := stepOut(t, r, "rename")
		t.Logf("rename: %s", out)
		if b, err := os.ReadFile(filepath.Join(dir, "top", "conf", "app.cfg")); err != nil || string(b) != "original\n" {
			t.Errorf("top/conf/app.cfg: %q, %v; want its bytes", b, err)
		}
	})
}

// TestAttackPlantedCapsule: a tool-only plan writes src/.planc/capsule.json
// granting sh (refused), and a shell step writes it by a script no
// refusal reads; a later planc run started in src/ refuses the planted
// manifest as untrusted, so its shell plan never runs. The control: once
// the user trusts that manifest (planc trust), the later run uses it and
// runs sh.
func TestAttackPlantedCapsule(t *testing.T) {
	world := func(t *testing.T) string {
		dir := inodeWorld(t)
		testkit.WriteFiles(t, dir, "src/keep.txt", "x\n", "grant.json", grantShell,
			"capsule.json", `{"name": "local/top", "capabilities": {"plan": {"submit": true}, "shell": {"allow": ["sh"]}}, "tools": {"builtin": ["write-file"]}}`,
			"plant.sh", "mkdir -p src/.planc && cp grant.json src/.planc/capsule.json && echo planted\n",
			"src/later.json", `{"id": "later", "steps": [{"id": "sh", "shell": "sh -c 'echo pwned'"}]}`)
		return dir
	}
	later := func(t *testing.T, dir string) runOut {
		return planc(t, filepath.Join(dir, "src"), "later.json")
	}
	forEachConf(t, func(t *testing.T) {
		dir := world(t)
		testkit.WriteFiles(t, dir, "src/.planc/capsule.json", grantShell) // trusted as planc trust would
		if r := later(t, dir); r.code != 0 || !strings.Contains(r.stdout, "pwned") {
			t.Fatalf("the control: a trusted manifest should grant sh: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
	}, func(t *testing.T, conf attackConf) {
		dir := world(t)
		testkit.WriteFiles(t, dir, "plan.json", shSteps("tool=tool:src/.planc/capsule.json:"+grantShell))
		r := runInode(t, conf, dir, nil, "--capsule", "capsule.json", "plan.json")
		if out, status := stepOut(t, r, "tool"); status != "failed" || !strings.Contains(out, ".planc") {
			t.Errorf("write-file of src/.planc/capsule.json: %s %q; want it refused", status, out)
		}
		if _, err := os.Lstat(filepath.Join(dir, "src", ".planc", "capsule.json")); err == nil {
			t.Error("write-file made src/.planc/capsule.json")
		}
		testkit.WriteFiles(t, dir, "plan.json", shSteps("plant=plant.sh"))
		runInode(t, conf, dir, nil, "--capsule", "capsule.json", "plan.json")
		rl := later(t, dir)
		if rl.code != 2 || strings.Contains(rl.stdout, "pwned") || !strings.Contains(rl.stderr, `is not trusted`) || !strings.Contains(rl.stderr, `planc trust .planc/capsule.json`) {
			t.Errorf("a later run under the planted manifest: exit %d\n%s\n%s", rl.code, rl.stdout, rl.stderr)
		}
	})
}

// subCapsuleLateWorld is subCapsuleWorld where what the sub-capsules run
// is not there as a file when the parent's plan starts: missing (how ==
// "missing") or a symbolic link in the working directory to a file
// elsewhere in it (how == "link"). The parent's plan may write it, or
// re-point the link, before it spawns them.
func subCapsuleLateWorld(t *testing.T, how string) string {
	dir := subCapsuleWorld(t)
	for _, f := range []string{"deploy.sh", "run.sh", "server.sh"} {
		p := filepath.Join(dir, "tools", f)
		switch how {
		case "missing":
			os.Remove(p)
		case "link":
			real := filepath.Join(dir, "real", f)
			os.MkdirAll(filepath.Dir(real), 0o755)
			if err := os.Rename(p, real); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("../real/"+f, p); err != nil {
				t.Fatal(err)
			}
		}
	}
	testkit.WriteFiles(t, dir, "repoint.sh", `mkdir -p forged && for f in deploy.sh run.sh server.sh; do printf '#!/bin/sh\necho "leak=$DEPLOY_TOKEN$GITHUB_TOKEN" | tee leak.txt\n' > forged/$f; chmod +x forged/$f; ln -sfn ../forged/$f tools/$f; done
echo repointed
`)
	return dir
}

// TestAttackSubCapsuleLateFiles: what a sub-capsule would run is missing
// when the parent's plan starts (the kernel can hold only what exists),
// or reached through a symbolic link in the working directory (the
// kernel holds the file it leads to, not the link, which is pinned). The
// parent's plan writes the missing files — by a script no refusal reads,
// and by write-file — or re-points the links, then spawns the
// sub-capsules: each spawn is refused, saying why, and neither token
// appears; with the links untouched the sub-capsules run their files. The
// controls: the files forged before the run leak both tokens
// (TestAttackSubCapsuleHijack's control), and re-pointing the links makes
// the paths the sub-capsules run lead to the forged files.
func TestAttackSubCapsuleLateFiles(t *testing.T) {
	t.Parallel()
	env := []string{"DEPLOY_TOKEN=" + deployToken, "GITHUB_TOKEN=" + githubToken}
	capsules := []string{"d=capsule:deployer", "r=capsule:runner", "m=capsule:mcp"}
	forEachConf(t, func(t *testing.T) {
		dir := subCapsuleLateWorld(t, "link")
		if out, err := exec.Command("sh", "-c", "cd "+dir+" && sh repoint.sh && sh tools/run.sh").CombinedOutput(); err != nil || !strings.Contains(string(out), "leak=") {
			t.Fatalf("the control: the re-pointed link should run the forged file: %q, %v", out, err)
		}
	}, func(t *testing.T, conf attackConf) {
		cases := []struct {
			name, how string
			steps     []string
			why       string
		}{
			{"missing/shell", "missing", []string{"forge=forge.sh"}, "which did not exist when the plan started"},
			{"missing/tool", "missing", []string{"w1=tool:tools/deploy.sh:#!/bin/sh\necho leak=$DEPLOY_TOKEN\n", "w2=tool:tools/run.sh:echo leak=$GITHUB_TOKEN\n",
				"w3=tool:tools/server.sh:echo leak=$GITHUB_TOKEN > leak.txt\n"}, "which did not exist when the plan started"},
			{"missing/untouched", "missing", nil, "which did not exist when the plan started"},
			{"link/repoint", "link", []string{"repoint=repoint.sh"}, "not to the file they led to when the plan started"},
			// A link in the working directory to a file in it is pinned,
			// not refused: untouched, the sub-capsules run their files.
			{"link/untouched", "link", nil, ""},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				dir := subCapsuleLateWorld(t, c.how)
				testkit.WriteFiles(t, dir, "plan.json", shSteps(append(c.steps, capsules...)...))
				r := runInode(t, conf, dir, env, "--capsule", "capsule.json", "plan.json")
				b, _ := os.ReadFile(filepath.Join(dir, "leak.txt"))
				if all := r.stdout + r.stderr + string(b); strings.Contains(all, deployToken) || strings.Contains(all, githubToken) {
					t.Errorf("a token leaked:\n%s\n%s\n%s", r.stdout, r.stderr, b)
				}
				for _, id := range []string{"d", "r", "m"} {
					out, status := stepOut(t, r, id)
					if c.why == "" {
						if status != "success" {
							t.Errorf("step %s: %s %q; want the sub-capsule's own file run through the pinned link", id, status, out)
						}
						continue
					}
					if c.name == "missing/untouched" && id != "d" {
						// An argument that names no file (sh's script)
						// refuses only once it does: here sh finds none.
						if status != "failed" || !strings.Contains(out, "No such file") {
							t.Errorf("step %s: %s %q; want it failed, its script missing", id, status, out)
						}
						continue
					}
					if status != "failed" || !strings.Contains(out, "the roost refuses to spawn capsule") || !strings.Contains(out, c.why) {
						t.Errorf("step %s: %s %q; want the spawn refused, %q", id, status, out, c.why)
					}
				}
				for _, s := range r.report(t).Steps {
					if s.StepID != "d" && s.StepID != "r" && s.StepID != "m" {
						t.Logf("%s: %s %s", s.StepID, s.Status, deref(s.Output)+deref(s.Error))
					}
				}
			})
		}
	})
}

// TestAttackSubCapsuleOutsideLink: a sub-capsule's command runs a script
// through a symbolic link outside the working directory, in a directory
// planc's user may write; the parent's step re-points the link at a
// forged script and spawns the sub-capsule: the spawn is refused (the
// link no longer leads to the file it led to at plan start), and the
// token does not leak. A spawn before the re-pointing runs the original.
// The control: the re-pointed link runs the forged script.
func TestAttackSubCapsuleOutsideLink(t *testing.T) {
	world := func(t *testing.T) (dir, other string) {
		dir, other = inodeWorld(t), inodeWorld(t)
		testkit.WriteFiles(t, other, "real.sh", "echo original\n", "forged.sh", "echo leak=$GITHUB_TOKEN\n")
		if err := os.Symlink("real.sh", filepath.Join(other, "run.sh")); err != nil {
			t.Fatal(err)
		}
		testkit.WriteFiles(t, dir,
			"roost/local/runner/capsule.json", `{"name": "local/runner", "capabilities": {"shell": {"env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}}},
				"entrypoint": {"command": ["sh", `+fmt.Sprintf("%q", filepath.Join(other, "run.sh"))+`]}}`,
			"capsule.json", `{"name": "local/top", "capabilities": {"plan": {"submit": true}, "shell": {"allow": ["sh"]}, "spawn": {"allow": ["local/runner"]}}}`,
			"repoint.sh", "ln -sfn forged.sh "+filepath.Join(other, "run.sh")+" && echo repointed\n")
		chownNobody(other)
		return dir, other
	}
	env := []string{"GITHUB_TOKEN=" + githubToken}
	forEachConf(t, func(t *testing.T) {
		dir, other := world(t)
		if out, err := exec.Command("sh", "-c", "cd "+dir+" && sh repoint.sh && GITHUB_TOKEN=x sh "+filepath.Join(other, "run.sh")).CombinedOutput(); err != nil || !strings.Contains(string(out), "leak=x") {
			t.Fatalf("the control: the re-pointed link should run the forged script: %q, %v", out, err)
		}
	}, func(t *testing.T, conf attackConf) {
		dir, _ := world(t)
		testkit.WriteFiles(t, dir, "plan.json", shSteps("before=capsule:runner", "repoint=repoint.sh", "after=capsule:runner"))
		r := runInode(t, conf, dir, env, "--capsule", "capsule.json", "plan.json")
		if strings.Contains(r.stdout+r.stderr, githubToken) {
			t.Errorf("the token leaked:\n%s\n%s", r.stdout, r.stderr)
		}
		if out, status := stepOut(t, r, "before"); status != "success" || !strings.Contains(out, "original") {
			t.Errorf("before: %s %q; want the original script", status, out)
		}
		if out, status := stepOut(t, r, "repoint"); status != "success" || !strings.Contains(out, "repointed") {
			t.Errorf("repoint: %s %q; the attack did not run", status, out)
		}
		if out, status := stepOut(t, r, "after"); status != "failed" || !strings.Contains(out, "not to the file they led to when the plan started") {
			t.Errorf("after: %s %q; want the spawn refused", status, out)
		}
	})
}

// TestAttackSubCapsuleLatePlan: a sub-capsule's entrypoint plan lies in
// the working directory and is missing when the parent's plan starts. The
// parent's step writes it — a plan that prints the token the sub-capsule's
// own manifest grants — and spawns the sub-capsule: the spawn is refused,
// saying why, and the token does not appear. The control: the same plan
// there before the run is run, and prints the token.
func TestAttackSubCapsuleLatePlan(t *testing.T) {
	t.Parallel()
	env := []string{"GITHUB_TOKEN=" + githubToken}
	forged := `{"id": "forged", "steps": [{"id": "x", "shell": "sh -c 'echo leak=$GITHUB_TOKEN'"}]}`
	world := func(t *testing.T) string {
		dir := inodeWorld(t)
		testkit.WriteFiles(t, dir,
			"roost/local/late/capsule.json", `{"name": "local/late", "capabilities": {"shell": {"allow": ["sh"], "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}}},
				"entrypoint": {"plan": "../../../late.json"}}`,
			"capsule.json", `{"name": "local/top", "capabilities": {"plan": {"submit": true}, "shell": {"allow": ["sh"]}, "spawn": {"allow": ["local/late"]}}}`,
			"forge.sh", "cat > late.json <<'EOF'\n"+forged+"\nEOF\n")
		return dir
	}
	forEachConf(t, func(t *testing.T) {
		dir := world(t)
		testkit.WriteFiles(t, dir, "late.json", forged, "plan.json", shSteps("c=capsule:late"))
		r := runInode(t, attackConf{name: "control"}, dir, env, "--capsule", "capsule.json", "plan.json")
		if out, status := stepOut(t, r, "c"); status != "success" || !strings.Contains(out, "leak="+githubToken) {
			t.Fatalf("the control: the plan there at plan start should run and print the token: %s %q\n%s", status, out, r.stderr)
		}
	}, func(t *testing.T, conf attackConf) {
		dir := world(t)
		testkit.WriteFiles(t, dir, "plan.json", shSteps("forge=forge.sh", "c=capsule:late"))
		r := runInode(t, conf, dir, env, "--capsule", "capsule.json", "plan.json")
		if strings.Contains(r.stdout+r.stderr, githubToken) {
			t.Errorf("the token leaked:\n%s\n%s", r.stdout, r.stderr)
		}
		if out, status := stepOut(t, r, "c"); status != "failed" || !strings.Contains(out, "the roost refuses to spawn capsule") ||
			!strings.Contains(out, "(its entrypoint plan), which did not exist when the plan started") {
			t.Errorf("c: %s %q; want the spawn refused for its entrypoint plan", status, out)
		}
		if _, err := os.Stat(filepath.Join(dir, "late.json")); err != nil {
			t.Errorf("the step did not write late.json (%v): the test proves nothing", err)
		}
	})
}
