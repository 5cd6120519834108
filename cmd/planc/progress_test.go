package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/internal/testkit"
)

// progressPlan exercises every line of the lines view without a shell:
// a success, a condition's skip, a retry, a fail-stop, and steps that
// never run after it.
const progressPlan = `{"id": "tools", "steps": [
  {"id": "list", "tool": "repo-files", "input": {"glob": "src/**/*.go"}},
  {"id": "never", "tool": "notes", "depends_on": ["list"], "if": "$list.output == 'nothing'", "input": {"body": "x"}},
  {"id": "read", "tool": "read-file", "retries": 1, "input": {"path": "missing.txt"}},
  {"id": "note", "tool": "notes", "depends_on": ["read"], "input": {"body": "x"}},
  {"id": "after", "tool": "notes", "depends_on": ["never"], "input": {"body": "x"}}
]}`

// TestProgressLinesGolden: planc run --progress=lines prints one plain
// line per step event, exactly as testdata/progress/lines.txt has it
// (times normalised); forcing the live view into a pipe prints the same.
func TestProgressLinesGolden(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "plan.json", progressPlan, "src/a.go", "")
	golden := filepath.Join("testdata", "progress", "lines.txt")
	for _, flag := range []string{"--progress=lines", "--progress", "--progress=tty"} {
		r := planc(t, dir, flag, "plan.json")
		if r.code != 1 {
			t.Fatalf("%s: exit %d, want 1: %s", flag, r.code, r.stderr)
		}
		if strings.ContainsRune(r.stderr, '\x1b') {
			t.Errorf("%s into a pipe wrote an escape sequence:\n%q", flag, r.stderr)
		}
		got := testkit.NormaliseTimes(r.stderr)
		if *testkit.Update && flag == "--progress=lines" {
			if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", flag, diff)
		}
	}
}

// TestProgressOffInPipe: into a pipe nothing but the summary is shown
// unless asked, and --quiet or --progress=off keep it so.
func TestProgressOffInPipe(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "plan.json", progressPlan, "src/a.go", "")
	want := "Plan 'tools': 5 steps, 1 succeeded, 1 failed, 1 skipped\n"
	for _, args := range [][]string{{}, {"--quiet"}, {"-q"}, {"--progress=off"}, {"--progress=off", "--quiet"}} {
		r := planc(t, dir, append(args, "plan.json")...)
		if r.code != 1 || r.stderr != want {
			t.Errorf("%q: exit %d, stderr %q; want 1 and only the summary %q", args, r.code, r.stderr, want)
		}
	}
}

// TestProgressLinesRefused: a plan refused before any step ran gets one
// refused line after its diagnostics.
func TestProgressLinesRefused(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "plan.json", `{"id": "bad", "steps": [{"id": "a", "tool": "notes", "depends_on": ["b"], "input": {"body": "x"}}]}`)
	r := planc(t, dir, "--progress=lines", "plan.json")
	last := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if r.code != 2 || !strings.HasSuffix(last[len(last)-1], "  refused  plan.json: 1 error (above)") {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 2 and a last line \"refused  plan.json: 1 error (above)\"", r.code, r.stderr)
	}
}
