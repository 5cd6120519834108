package main

// The race between a spawn's check and the sub-capsule's start: the
// parent checks what the sub-capsule will run (its allowlisted binary,
// its command entrypoint, its MCP server's script, each through its
// links), and the child used to resolve the same paths again. A planc
// built with the test hooks (testkit.HookedPlancBinary) stops each child
// between the two, so that the test swaps the files there, without
// sleeping; the child checks the pins its spawn handed it and refuses.
// The control turns the child's checks off: the same swap then runs the
// forged file, which prints the token.

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/planc/planc/host/capsule"
	"github.com/planc/planc/internal/testkit"
)

// spawnRaceCase is one swap made while the sub-capsule waits.
type spawnRaceCase struct {
	name  string
	world string // subCapsuleLateWorld's how: "" for the files themselves, "link"
	step  string // the capsule step: "capsule:NAME"
	swap  func(t *testing.T, dir string)
}

// replaceFile puts a new file with content at rel in dir by rename, as
// a writer who cannot write the file in place would: another inode.
func replaceFile(t *testing.T, dir, rel, content string) {
	t.Helper()
	tmp := filepath.Join(dir, rel+".forged")
	if err := os.WriteFile(tmp, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, rel)); err != nil {
		t.Fatal(err)
	}
}

// repointLink makes the link rel in dir lead to target, by rename.
func repointLink(t *testing.T, dir, rel, target string) {
	t.Helper()
	tmp := filepath.Join(dir, rel+".new")
	if err := os.Symlink(target, tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, rel)); err != nil {
		t.Fatal(err)
	}
}

func spawnRaceCases(demo string) []spawnRaceCase {
	deploy := "#!/bin/sh\necho leak=$DEPLOY_TOKEN\n"
	return []spawnRaceCase{
		{"allowlist", "", "d=capsule:deployer", func(t *testing.T, dir string) { replaceFile(t, dir, "tools/deploy.sh", deploy) }},
		{"command", "", "r=capsule:runner", func(t *testing.T, dir string) { replaceFile(t, dir, "tools/run.sh", "echo leak=$GITHUB_TOKEN\n") }},
		{"mcp", "", "m=capsule:mcp", func(t *testing.T, dir string) {
			replaceFile(t, dir, "tools/server.sh", "echo leak=$GITHUB_TOKEN > leak.txt\nexec "+demo+"\n")
		}},
		{"link-repoint", "link", "r=capsule:runner", func(t *testing.T, dir string) {
			testkit.WriteFiles(t, dir, "forged/run.sh", "echo leak=$GITHUB_TOKEN\n")
			repointLink(t, dir, "tools/run.sh", "../forged/run.sh")
		}},
		{"file-replace", "link", "d=capsule:deployer", func(t *testing.T, dir string) { replaceFile(t, dir, "real/deploy.sh", deploy) }},
	}
}

// pauseDir makes the two FIFOs of capsule.EnvTestSpawnPause in a
// directory the child (root, or uid 65534) can open.
func pauseDir(t *testing.T) string {
	t.Helper()
	dir := nobodyDir(t)
	for _, f := range []string{"paused", "go"} {
		p := filepath.Join(dir, f)
		if err := syscall.Mkfifo(p, 0o666); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, 0o666)
	}
	return dir
}

// runPaused runs `planc run args…` (the hooked planc) in dir as conf
// says; when its sub-capsule stands between its parent's check and its
// own, swap runs, then the sub-capsule goes on. It fails t when planc
// ends before a sub-capsule paused.
func runPaused(t *testing.T, conf attackConf, dir string, env []string, swap func(), args ...string) runOut {
	t.Helper()
	bin := testkit.HookedPlancBinary(t)
	pause := pauseDir(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"run"}, args...)...)
	cmd.Dir = dir
	cmd.Cancel = func() error { return testkit.StopPlanc(cmd.Process) }
	cmd.WaitDelay = 10 * time.Second
	t.Cleanup(prepareAs(t, conf, cmd, append(env, capsule.EnvTestSpawnPause+"="+pause)))
	var so, se strings.Builder
	cmd.Stdout, cmd.Stderr = &so, &se
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	paused := make(chan struct{})
	go func() {
		defer close(paused)
		if f, err := os.Open(filepath.Join(pause, "paused")); err == nil {
			io.Copy(io.Discard, f)
			f.Close()
		}
	}()
	var err error
	select {
	case <-paused:
		swap()
		// The child reads "go" to its end: opening it for writing waits
		// for the child, and closing it lets the child go on.
		if f, err := os.OpenFile(filepath.Join(pause, "go"), os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		err = <-waited
	case err = <-waited:
		// No sub-capsule paused: the reader of "paused" is let go (a
		// FIFO opened read-write never waits).
		if f, ferr := os.OpenFile(filepath.Join(pause, "paused"), os.O_RDWR, 0); ferr == nil {
			f.Close()
		}
		<-paused
		t.Fatalf("planc ended before its sub-capsule paused (%v):\n%s\n%s", err, so.String(), se.String())
	}
	return runOut{so.String(), se.String(), exitCode(t, err)}
}

// TestAttackSpawnRace: while a sub-capsule stands between its parent's
// check of what it runs and its own start, the files are swapped: an
// allowlisted script, a command entrypoint's script and an MCP server's
// script replaced by rename, a link in the working directory re-pointed,
// and the file a link leads to replaced. The sub-capsule refuses to run
// (its spawn's pins no longer hold), and no token appears. The control,
// with the child's checks off (PLANC_TEST_SPAWN_NORECHECK), runs the
// forged file and prints the token. As root and as uid 65534 in a
// delegated cgroup.
func TestAttackSpawnRace(t *testing.T) {
	t.Parallel()
	testkit.NeedScope(t)
	env := []string{"DEPLOY_TOKEN=" + deployToken, "GITHUB_TOKEN=" + githubToken}
	demo := mcpServerBin(t)
	asUsers(t, func(t *testing.T, conf attackConf) {
		for _, c := range spawnRaceCases(demo) {
			for _, control := range []bool{false, true} {
				name := c.name
				if control {
					name += "/control"
				}
				t.Run(name, func(t *testing.T) {
					dir := subCapsuleWorld(t)
					if c.world != "" {
						dir = subCapsuleLateWorld(t, c.world)
					}
					testkit.WriteFiles(t, dir, "plan.json", shSteps(c.step))
					env := env
					if control {
						env = append(env, capsule.EnvTestSpawnNoRecheck+"=1")
					}
					r := runPaused(t, conf, dir, env, func() { c.swap(t, dir) }, "--capsule", "capsule.json", "plan.json")
					b, _ := os.ReadFile(filepath.Join(dir, "leak.txt"))
					all := r.stdout + r.stderr + string(b)
					leaked := strings.Contains(all, deployToken) || strings.Contains(all, githubToken)
					id, _, _ := strings.Cut(c.step, "=")
					out, status := stepOut(t, r, id)
					if control {
						if !leaked {
							t.Fatalf("the control: with the checks off the swap should leak a token: %s %q\n%s", status, out, r.stderr)
						}
						return
					}
					if leaked {
						t.Errorf("a token leaked:\n%s\n%s\n%s", r.stdout, r.stderr, b)
					}
					if status != "failed" || !strings.Contains(out, "a sub-capsule runs only what its spawn checked") {
						t.Errorf("step %s: %s %q; want the sub-capsule refused", id, status, out)
					}
				})
			}
		}
	})
}
