package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/vm"
)

// TestRunCompose: the built-in compose combines several steps' outputs and
// statuses into one text, exactly; write-file then puts it in a file, and a
// null value (a step with no output) reads as empty text. A template a
// reference brings in is checked by the tool at run time: a placeholder
// without a value fails the step with the same words check uses.
func TestRunCompose(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "src/a.go", "", "src/b.go", "", "tmpl.txt", "{missing}", "plan.json", `{
  "id": "compose",
  "steps": [
    {"id": "list", "tool": "repo-files", "input": {"glob": "src/*.go"}},
    {"id": "greet", "tool": "read-file", "depends_on": ["write"], "input": {"path": "greeting.txt"}},
    {"id": "write", "tool": "write-file", "input": {"path": "greeting.txt", "content": "hi {there}"}},
    {"id": "empty", "tool": "repo-files", "input": {"glob": "none/*"}},
    {"id": "summary", "tool": "compose", "depends_on": ["list", "greet", "empty"],
     "input": {"template": "files ({status}):\n{files}\n{{greeting}}: {greet}; none: [{none}]",
               "values": {"status": "$list.status", "files": "$list.output", "greet": "$greet.output", "none": "$empty.output"}}},
    {"id": "save", "tool": "write-file", "depends_on": ["summary"], "input": {"path": "summary.txt", "content": "$summary.output"}},
    {"id": "tmpl", "tool": "read-file", "input": {"path": "tmpl.txt"}},
    {"id": "bad", "tool": "compose", "depends_on": ["tmpl"], "on_error": "continue", "input": {"template": "$tmpl.output", "values": {"x": "1"}}}
  ]
}`)
	r := planc(t, dir, "plan.json")
	if r.code != 0 {
		t.Fatalf("exit %d, want 0 (bad fails, and continues); stderr:\n%s", r.code, r.stderr)
	}
	want := "files (success):\nsrc/a.go\nsrc/b.go\n{greeting}: hi {there}; none: []"
	got := map[string]vm.StepReport{}
	for _, s := range r.report(t).Steps {
		got[s.StepID] = s
	}
	if d := cmp.Diff(vm.StepReport{StepID: "summary", Status: vm.StatusSuccess, Output: ptr(want)}, got["summary"]); d != "" {
		t.Errorf("summary (-want +got):\n%s", d)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "summary.txt")); err != nil || string(b) != want {
		t.Errorf("summary.txt: %q, %v", b, err)
	}
	bad := got["bad"]
	if bad.Status != vm.StatusFailed || bad.Error == nil || *bad.Error != `compose: placeholder {missing} has no value; add "missing" to "values"` {
		t.Errorf("bad: %+v", bad)
	}
}
