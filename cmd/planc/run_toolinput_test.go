package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planc/planc/internal/testkit"
)

// TestRunRefusesToolInput: the case. A write-file step with
// {"file", "text"} used to pass check and fail only when it ran, after the
// steps before it had done their work. Now planc check refuses it at the
// unknown field, and planc run refuses the plan before any step runs: no
// session, no file written by the first step.
func TestRunRefusesToolInput(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "plan.json", `{"id": "w", "steps": [
  {"id": "first", "tool": "write-file", "input": {"path": "first.txt", "content": "done"}},
  {"id": "save", "tool": "write-file", "depends_on": ["first"], "input": {"file": "x.txt", "contnt": "$first.output"}}
]}
`)
	r := planc(t, dir, "plan.json")
	if r.code != 2 || r.stdout != "" {
		t.Fatalf("exit %d, want 2; stdout %q; stderr %q", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		`plan.json:3:75: error: tool "write-file": unknown input field "file"; the tool takes {"path": "…", "content": "…"} [tool-input]`,
		`plan.json:3:92: error: tool "write-file": unknown input field "contnt"; did you mean "content"? [tool-input]`,
	} {
		if !strings.Contains(r.stderr, want+"\n") {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if s := sessions(t, dir); len(s) != 0 {
		t.Errorf("a refused plan made a session: %v", s)
	}
	if _, err := os.Stat(filepath.Join(dir, "first.txt")); !os.IsNotExist(err) {
		t.Errorf("the first step ran: %v", err)
	}

	c := run(t, "", "check", "--capsule", "../../golden/testdata/check/capsule.json", filepath.Join(dir, "plan.json"))
	if c.Code != 1 || !strings.Contains(c.Stdout, `unknown input field "contnt"; did you mean "content"? [tool-input]`) {
		t.Errorf("check: exit %d, stdout %q", c.Code, c.Stdout)
	}
}
