package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planc/planc/internal/testkit"
)

// TestRunFromSubdirectory: run from a subdirectory of a project, planc
// works at the project's root (S34): tool paths start there, the session
// is under the root's .planc/sessions, and `planc trace list` at the root
// shows it. --workdir names another working directory.
func TestRunFromSubdirectory(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	testkit.WriteFiles(t, root,
		".planc/capsule.json", `{"name": "local/proj", "capabilities": {"plan": {"submit": true}}, "tools": {"builtin": ["write-file", "read-file"]}}`,
		"plans/ci.json", `{"id": "ci", "steps": [
  {"id": "mark", "tool": "write-file", "input": {"path": "marker.txt", "content": "here\n"}},
  {"id": "look", "tool": "read-file", "depends_on": ["mark"], "input": {"path": "marker.txt"}}
]}`,
		"wc/keep.txt", "")
	sub := filepath.Join(root, "wc")
	run := func(dir string, args ...string) (string, string, int) {
		t.Helper()
		cmd := exec.Command(plancBin(t), args...)
		cmd.Dir = dir
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		code := exitCode(t, cmd.Run())
		return stdout.String(), stderr.String(), code
	}

	if _, stderr, code := run(sub, "run", "../plans/ci.json"); code != 0 {
		t.Fatalf("planc run ../plans/ci.json in wc/: exit %d\n%s", code, stderr)
	}
	if b, err := os.ReadFile(filepath.Join(root, "marker.txt")); err != nil || string(b) != "here\n" {
		t.Errorf("the step did not write at the root: %q (%v)", b, err)
	}
	if _, err := os.Stat(filepath.Join(sub, "marker.txt")); err == nil {
		t.Error("the step wrote in the subdirectory")
	}
	if _, err := os.Stat(filepath.Join(sub, ".planc")); err == nil {
		t.Error("the run made a .planc in the subdirectory")
	}
	id := filepath.Base(oneSession(t, root))
	stdout, stderr, code := run(root, "trace", "list")
	if code != 0 || !strings.Contains(strings.Join(strings.Fields(stdout), " "), id+" 1 ci completed") {
		t.Errorf("planc trace list at the root: exit %d, stderr %q, does not list %s:\n%s", code, stderr, id, stdout)
	}

	// --workdir overrides: the step writes in wc/, the session is there.
	if _, stderr, code := run(sub, "run", "--workdir", ".", "--quiet", "../plans/ci.json"); code != 0 {
		t.Fatalf("planc run --workdir .: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(sub, "marker.txt")); err != nil {
		t.Errorf("with --workdir ., the step did not write in wc/: %v", err)
	}
	if s := sessions(t, sub); len(s) != 1 {
		t.Errorf("with --workdir ., sessions under wc/: %v", s)
	}
	if s := sessions(t, root); len(s) != 1 {
		t.Errorf("with --workdir ., sessions under the root: %v", s)
	}
	if _, stderr, code := run(sub, "run", "--workdir", "no-such-dir", "../plans/ci.json"); code != 2 || !strings.Contains(stderr, "--workdir no-such-dir is not a directory") {
		t.Errorf("--workdir no-such-dir: exit %d, stderr %q", code, stderr)
	}
}
