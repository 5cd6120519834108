package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/planc/planc/vm"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/planc/planc/host/sandbox"
	"github.com/planc/planc/internal/testkit"
)

// The attack class "races against tool calls": a shell step swaps
// symbolic links between a safe file and protected ones while write-file
// steps write through the same names. Nothing may land in the protected
// set. The helpers here are this file's own.

// attackRun runs `planc run args…` in dir, at most two minutes, and
// returns its standard output and error and its exit status.
func attackRun(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, plancBin(t), append([]string{"run"}, args...)...)
	cmd.Dir = dir
	// SIGTERM and SIGINT end a planc that hangs, its scope with it.
	cmd.Cancel = func() error { return testkit.StopPlanc(cmd.Process) }
	cmd.WaitDelay = 10 * time.Second
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("planc run: %v", err)
	}
	return so.String(), se.String(), code
}

// attackNeedScope skips t where there is no planc binary or no delegated
// cgroup v2 scope (planc run refuses shell steps without one).
func attackNeedScope(t *testing.T) {
	t.Helper()
	if err := sandbox.Probe(); err != nil {
		t.Skipf("no delegated cgroup v2 scope here: %v", err)
	}
}

// attackSteps decodes the report's steps by id.
func attackSteps(t *testing.T, stdout, stderr string) map[string]vm.StepReport {
	t.Helper()
	var rep vm.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("the report is not JSON: %v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	out := map[string]vm.StepReport{}
	for _, s := range rep.Steps {
		out[s.StepID] = s
	}
	return out
}

// attackFiles writes name, content pairs under dir.
func attackFiles(t *testing.T, dir string, nameContent ...string) {
	t.Helper()
	for i := 0; i+1 < len(nameContent); i += 2 {
		p := filepath.Join(dir, nameContent[i])
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(nameContent[i+1]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// raceWrites is how many write-file steps race the swapping step.
const raceWrites = 400

// TestAttackToolRace: 400 write-file steps write "link", "d/secret" and
// "p/plan-1.json" while a shell step keeps turning each into a symbolic
// link to a read_only file, to the read_only directory and to the
// session's plans/ directory, and back into a plain file or directory.
// The read_only file and the plan file keep their bytes, no file appears
// in either directory, and writes to the plain names do land.
func TestAttackToolRace(t *testing.T) {
	t.Parallel()
	attackNeedScope(t)
	asUsers(t, func(t *testing.T, conf attackConf) {
		dir := nobodyDir(t)
		sess := filepath.Join(dir, "sess")
		plans := filepath.Join(sess, "plans")
		buildSwapper(t, dir)
		// The swapper runs until the last write is done: every write races it.
		steps := []string{
			`{"id": "swap", "shell": ` + quoteJSON("./swapper "+plans) + `}`,
			`{"id": "ready", "shell": "sh -c 'while [ ! -e started ]; do sleep 0.01; done'"}`,
		}
		var ids []string
		for i := range raceWrites {
			path := []string{"link", "d/secret", "p/plan-1.json"}[i%3]
			id := fmt.Sprintf("w%d", i)
			ids = append(ids, quoteJSON(id))
			steps = append(steps, fmt.Sprintf(`{"id": %q, "tool": "write-file", "depends_on": ["ready"], "on_error": "continue", "input": {"path": %q, "content": "pwned"}}`, id, path))
		}
		steps = append(steps, `{"id": "stop", "tool": "write-file", "depends_on": [`+strings.Join(ids, ", ")+`], "input": {"path": "stop", "content": ""}}`)
		attackFiles(t, dir,
			"capsule.json", `{"name": "local/race",
				"capabilities": {"plan": {"submit": true}, "shell": {"allow": ["sh", "./swapper"], "timeout": "2m"},
					"filesystem": {"read_only": ["ro"]}},
				"tools": {"builtin": ["write-file"]}}`,
			"ro/secret", "secret\n",
			"plan.json", `{"id": "race", "steps": [`+strings.Join(steps, ",\n")+`]}`)
		planSrc, _ := os.ReadFile(filepath.Join(dir, "plan.json"))

		r := runAs(t, conf, plancCmd(t, dir, "--capsule", "capsule.json", "--session", sess, "--max-parallel", "8", "plan.json"), nil)
		stdout, stderr, code := r.stdout, r.stderr, r.code
		if strings.Contains(stderr, "protection") {
			t.Skipf("the kernel cannot protect steps here: %s", stderr)
		}
		got := attackSteps(t, stdout, stderr)
		if code != 0 || got["swap"].Status != vm.StatusSuccess || got["stop"].Status != vm.StatusSuccess {
			t.Fatalf("exit %d, swap %+v, stop %+v\nstderr:\n%s", code, got["swap"], got["stop"], stderr)
		}
		if b, err := os.ReadFile(filepath.Join(dir, "ro", "secret")); err != nil || string(b) != "secret\n" {
			t.Errorf("the read_only file was changed: %q %v", b, err)
		}
		if b, err := os.ReadFile(filepath.Join(plans, "plan-1.json")); err != nil || !bytes.Equal(b, planSrc) {
			t.Errorf("the plan file was changed: %q %v", b, err)
		}
		for _, d := range []string{filepath.Join(dir, "ro"), plans} {
			if ents, _ := os.ReadDir(d); len(ents) != 1 {
				t.Errorf("%s holds %d files, want 1", d, len(ents))
			}
		}
		wrote, refused := 0, 0
		for i := range raceWrites {
			switch s := got[fmt.Sprintf("w%d", i)]; s.Status {
			case vm.StatusSuccess:
				wrote++
			case vm.StatusFailed:
				refused++
			default:
				t.Errorf("w%d: %s", i, s.Status)
			}
		}
		t.Logf("%d writes landed on the plain names, %d were refused", wrote, refused)
		if wrote == 0 {
			t.Error("no write landed: the race test wrote nothing at all")
		}
	})
}

// swapperSrc is the step that races the writes: a program, so that it
// swaps far faster than a shell script that forks ln and mv could. Until
// the file "stop" exists it keeps turning "link" into a symbolic link to
// ro/secret or to the plan file and back into a plain file, and "d" and
// "p" into symbolic links to ro/ and to plans/ and back into plain
// directories, one goroutine for each.
const swapperSrc = `package main

import (
	"os"
	"path/filepath"
	"sync"
)

func main() {
	plans := os.Args[1]
	os.WriteFile("started", nil, 0o644)
	stop := func() bool { _, err := os.Stat("stop"); return err == nil }
	var wg sync.WaitGroup
	file := func(name string, targets ...string) {
		defer wg.Done()
		for i := 0; !stop(); i++ {
			tmp := name + ".tmp"
			os.Remove(tmp)
			if i%2 == 0 {
				os.Symlink(targets[i/2%len(targets)], tmp)
			} else {
				os.WriteFile(tmp, []byte("safe"), 0o644)
			}
			os.Rename(tmp, name)
		}
	}
	dir := func(name, target string) {
		defer wg.Done()
		for !stop() {
			os.RemoveAll(name)
			os.Symlink(target, name)
			os.Remove(name)
			os.Mkdir(name, 0o755)
		}
	}
	wg.Add(3)
	go file("link", "ro/secret", filepath.Join(plans, "plan-1.json"))
	go dir("d", "ro")
	go dir("p", plans)
	wg.Wait()
}
`

// buildSwapper builds swapperSrc as dir/swapper.
func buildSwapper(t *testing.T, dir string) {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the swapper with")
	}
	src := t.TempDir()
	attackFiles(t, src, "main.go", swapperSrc, "go.mod", "module swapper\n\ngo 1.22\n")
	build := exec.Command(gobin, "build", "-o", filepath.Join(dir, "swapper"), ".")
	build.Dir = src
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the swapper: %v\n%s", err, out)
	}
}

// quoteJSON returns s as a JSON string.
func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestAttackToolLinks: write-file through a symbolic link is refused with
// the path to write instead, and through a hard link to a read_only file
// or a directory above one renamed since planc started, with the
// protected path; nothing protected changes, and a plain write lands. The
// hard link, there when the plan started, is refused before dispatch, as a
// refusal is: a protected_path_denied line, no plan_step_start, no
// retries.
func TestAttackToolLinks(t *testing.T) {
	t.Run("control", func(t *testing.T) {
		// The hard link is the read_only file: a write through it, where
		// planc is not there to check, changes the protected bytes.
		dir := t.TempDir()
		attackFiles(t, dir, "ro/secret", "secret\n")
		if err := os.Link(filepath.Join(dir, "ro", "secret"), filepath.Join(dir, "hard")); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "hard"), []byte("pwned"), 0o644); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "ro", "secret")); string(b) != "pwned" {
			t.Fatalf("the control: a write through the hard link should change ro/secret: %q", b)
		}
	})
	asUsers(t, func(t *testing.T, conf attackConf) {
		dir, err := filepath.EvalSymlinks(nobodyDir(t))
		if err != nil {
			t.Fatal(err)
		}
		attackFiles(t, dir,
			"capsule.json", `{"name": "local/links", "capabilities": {"plan": {"submit": true}, "filesystem": {"read_only": ["ro"]}},
				"tools": {"builtin": ["write-file"]}}`,
			"ro/secret", "secret\n", "out/v2/keep", "",
			"plan.json", `{"id": "links", "steps": [
				{"id": "sym", "tool": "write-file", "on_error": "continue", "input": {"path": "out/current/x.txt", "content": "x"}},
				{"id": "hard", "tool": "write-file", "on_error": "continue", "retries": 2, "input": {"path": "hard", "content": "pwned"}},
				{"id": "plain", "tool": "write-file", "input": {"path": "out/v2/x.txt", "content": "x"}}
			]}`)
		if err := os.Symlink("v2", filepath.Join(dir, "out", "current")); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(filepath.Join(dir, "ro", "secret"), filepath.Join(dir, "hard")); err != nil {
			t.Fatal(err)
		}
		r := runInode(t, conf, dir, nil, "--capsule", "capsule.json", "--session", "sess", "plan.json")
		stdout, stderr, code := r.stdout, r.stderr, r.code
		if code != 0 {
			t.Fatalf("exit %d\nstderr:\n%s", code, stderr)
		}
		got := attackSteps(t, stdout, stderr)
		want := map[string]string{
			"sym": `write-file: "out/current/x.txt" goes through a symbolic link ("out/current" is one); built-in tools follow no symbolic links, ` +
				`so that no step can redirect a write: write to the path it resolves to, "` + dir + `/out/v2/x.txt"`,
			"hard": `refused: "hard" (as opened, "` + dir + `/hard") is a hard link to a file under the protected path "` + dir + `/ro", ` +
				`which no tool call may change; write elsewhere`,
		}
		trace, _ := os.ReadFile(filepath.Join(dir, "sess", "trace.jsonl"))
		denied := regexp.MustCompile(`"event":"protected_path_denied",[^\n]*"plan_id":"links","step_id":"hard","path":"` + regexp.QuoteMeta(dir) + `/hard"}`)
		if !denied.Match(trace) || strings.Contains(string(trace), `"step_id":"hard","kind"`) { // plan_step_start's members
			t.Errorf("hard: want a protected_path_denied line and no dispatch; trace:\n%s", trace)
		}
		for id, msg := range want {
			if s := got[id]; s.Status != vm.StatusFailed || derefOr(s.Error) != msg {
				t.Errorf("%s: %s %s\nwant %s", id, s.Status, derefOr(s.Error), msg)
			}
		}
		if s := got["plain"]; s.Status != vm.StatusSuccess {
			t.Errorf("plain: %s %s", s.Status, derefOr(s.Error))
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "ro", "secret")); string(b) != "secret\n" {
			t.Errorf("the read_only file was changed: %q", b)
		}
		if _, err := os.Stat(filepath.Join(dir, "out", "v2", "x.txt")); err != nil {
			t.Errorf("the plain write: %v", err)
		}
	})
}
