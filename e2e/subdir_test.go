package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planc/planc/internal/testkit"
)

// The working directory of a project's run (S34): run from a
// subdirectory, planc run, planc trace and planc serve all work at the
// project's root, the directory holding the discovered .planc/.

// subdirProject makes a project: .planc/capsule.json granting the
// built-in file tools and sh, plans/ci.json, and an empty subdirectory
// wc/. It returns the root and wc/.
func subdirProject(t *testing.T) (root, sub string) {
	t.Helper()
	root = t.TempDir()
	testkit.WriteFiles(t, root,
		".planc/capsule.json", `{"name": "local/proj", "capabilities": {"plan": {"submit": true}, "shell": {"allow": ["sh"]}}, "tools": {"builtin": ["write-file", "read-file", "notes"]}}`,
		"plans/ci.json", `{"id": "ci", "steps": [
  {"id": "mark", "tool": "write-file", "input": {"path": "marker.txt", "content": "here\n"}},
  {"id": "note", "tool": "notes", "depends_on": ["mark"], "input": {"body": "noted"}}
]}`,
		"plans/where.json", `{"id": "where", "steps": [{"id": "pwd", "shell": "sh -c 'pwd; ls'"}]}`,
		"wc/keep.txt", "")
	return root, filepath.Join(root, "wc")
}

// plancAt runs `planc args…` in dir and returns its standard output and
// error and its exit status.
func plancAt(t *testing.T, dir string, args ...string) runOut {
	t.Helper()
	cmd := exec.Command(plancBin(t), args...)
	cmd.Dir = dir
	var so, se strings.Builder
	cmd.Stdout, cmd.Stderr = &so, &se
	code := exitCode(t, cmd.Run())
	return runOut{so.String(), se.String(), code}
}

// TestRunShellFromSubdirectory: `cd proj/wc && planc run ../plans/where.json`
// runs its shell step at the project's root, and keeps the session there.
func TestRunShellFromSubdirectory(t *testing.T) {
	testkit.NeedScope(t)
	t.Parallel()
	root, sub := subdirProject(t)
	r := plancAt(t, sub, "run", "../plans/where.json")
	if r.code != 0 {
		t.Fatalf("planc run in wc/: exit %d\n%s", r.code, r.stderr)
	}
	rep := r.report(t)
	want := root + "\n"
	if real, err := filepath.EvalSymlinks(root); err == nil {
		want = real + "\n"
	}
	if out := deref(rep.Steps[0].Output); !strings.HasPrefix(out, want) || !strings.Contains(out, "plans\n") {
		t.Errorf("the shell step ran in %q; want the root %q", out, want)
	}
	if s := sessions(t, root); len(s) != 1 {
		t.Errorf("sessions under the root: %v", s)
	}
	if _, err := os.Stat(filepath.Join(sub, ".planc")); err == nil {
		t.Error("the run made a .planc in the subdirectory")
	}
}

// TestTraceFromSubdirectory: planc trace run in a subdirectory of the
// project reads the project's sessions: list, the newest session's steps,
// a session by id, a step's kept output, and prune.
func TestTraceFromSubdirectory(t *testing.T) {
	t.Parallel()
	root, sub := subdirProject(t)
	if r := plancAt(t, sub, "run", "--quiet", "../plans/ci.json"); r.code != 0 {
		t.Fatalf("planc run in wc/: exit %d\n%s", r.code, r.stderr)
	}
	id := filepath.Base(oneSession(t, root))
	atRoot := plancAt(t, root, "trace", "list")
	inSub := plancAt(t, sub, "trace", "list")
	if inSub.code != 0 || inSub.stdout != atRoot.stdout || !strings.Contains(strings.Join(strings.Fields(inSub.stdout), " "), id+" 1 ci completed") {
		t.Errorf("planc trace list in wc/: exit %d, stderr %q:\n%s\nat the root:\n%s", inSub.code, inSub.stderr, inSub.stdout, atRoot.stdout)
	}
	for _, args := range [][]string{{"steps"}, {"show", id}, {"logs", "note"}, {"report", id}} {
		atRoot := plancAt(t, root, append([]string{"trace"}, args...)...)
		inSub := plancAt(t, sub, append([]string{"trace"}, args...)...)
		if atRoot.code != 0 || inSub.code != 0 || inSub.stdout != atRoot.stdout {
			t.Errorf("planc trace %s: in wc/ exit %d %q\n%s\nat the root exit %d %q\n%s", strings.Join(args, " "),
				inSub.code, inSub.stderr, inSub.stdout, atRoot.code, atRoot.stderr, atRoot.stdout)
		}
	}
	// Prune from wc/ prunes the project's sessions: none is old enough.
	if r := plancAt(t, sub, "trace", "prune", "--older-than", "1h"); r.code != 0 || len(sessions(t, root)) != 1 {
		t.Errorf("planc trace prune in wc/: exit %d %q %q; sessions %v", r.code, r.stdout, r.stderr, sessions(t, root))
	}
	// A directory outside any project has no sessions, and says so.
	if r := plancAt(t, t.TempDir(), "trace", "list"); r.code != 0 || r.stderr != "planc trace: no sessions under .planc/sessions in the current directory or a parent\n" {
		t.Errorf("planc trace list outside a project: exit %d %q", r.code, r.stderr)
	}
}

// TestServeFromSubdirectory: planc serve started in a subdirectory of the
// project runs the submitted plans at the project's root, their session
// under the root's .planc/sessions.
func TestServeFromSubdirectory(t *testing.T) {
	t.Parallel()
	root, sub := subdirProject(t)
	c := startServe(t, sub, nil)
	r := c.call(t, "submit-plan", `{"id": "ci", "steps": [{"id": "mark", "tool": "write-file", "input": {"path": "marker.txt", "content": "here\n"}}]}`, nil)
	if r.IsError {
		t.Fatalf("submit-plan: %q\n%s", resultTexts(r), c.stderr)
	}
	if b, err := os.ReadFile(filepath.Join(root, "marker.txt")); err != nil || string(b) != "here\n" {
		t.Errorf("the step did not write at the root: %q (%v)", b, err)
	}
	if _, err := os.Stat(filepath.Join(sub, "marker.txt")); err == nil {
		t.Error("the step wrote in the subdirectory")
	}
	if s := sessions(t, root); len(s) != 1 {
		t.Errorf("sessions under the root: %v", s)
	}
	if _, err := os.Stat(filepath.Join(sub, ".planc")); err == nil {
		t.Error("serve made a .planc in the subdirectory")
	}
}
