package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/vm"
)

// wholeCapsule allows sh, write-file and notes.
const wholeCapsule = `{"name": "local/whole", "capabilities": {"plan": {"submit": true}, "shell": {"allow": ["sh"]}}, "tools": {"builtin": ["write-file", "notes"]}}`

// keptOutput is the session-relative mark name of a step's kept output
// of plan 1, as the cut mark names it from the working directory dir.
func keptOutput(t *testing.T, dir, step string, attempt int) string {
	t.Helper()
	rel, err := filepath.Rel(dir, filepath.Join(oneSession(t, dir), "outputs", "plan-1", fmt.Sprintf("%s.%d.txt", step, attempt)))
	if err != nil {
		t.Fatal(err)
	}
	return rel
}

// TestRunWholeOutputReference: a shell step prints 70,001 bytes; the
// report carries them cut at 64 KiB and marked, and write-file with
// "$big.output" writes all 70,001 (S20).
func TestRunWholeOutputReference(t *testing.T) {
	testkit.NeedScope(t)
	t.Parallel()
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "capsule.json", wholeCapsule, "plan.json", `{"id": "whole", "steps": [
		{"id": "big", "shell": "sh -c 'yes abcdefghi | head -c 70001'"},
		{"id": "copy", "tool": "write-file", "depends_on": ["big"], "input": {"path": "copy.txt", "content": "$big.output"}}
	]}`)
	r := planc(t, dir, "--capsule", "capsule.json", "plan.json")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	whole := strings.Repeat("abcdefghi\n", 7001)[:70001]
	copied, err := os.ReadFile(filepath.Join(dir, "copy.txt"))
	if err != nil || string(copied) != whole {
		t.Errorf("copy.txt holds %d bytes (%v), want the whole 70001", len(copied), err)
	}
	kept := keptOutput(t, dir, "big", 1)
	if b, _ := os.ReadFile(filepath.Join(dir, kept)); string(b) != whole {
		t.Errorf("kept output: %d bytes", len(b))
	}
	want := whole[:64<<10] + "\n[cut: 70001 bytes in all; whole text at " + kept + "]"
	if o := r.report(t).Steps[0].Output; o == nil || *o != want {
		t.Errorf("big's report output ends %q, want %q", tail(o), want[len(want)-120:])
	}
}

// TestRunWholeOutputCondition: conditions compare whole outputs. Two
// outputs whose first 64 KiB are equal but whose ends differ compare
// unequal; two equal outputs over 64 KiB compare equal, although the
// report's cut texts differ in their marks.
func TestRunWholeOutputCondition(t *testing.T) {
	testkit.NeedScope(t)
	t.Parallel()
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "capsule.json", wholeCapsule, "plan.json", `{"id": "cmp", "steps": [
		{"id": "a", "shell": "sh -c 'yes | head -c 70000; echo A'"},
		{"id": "b", "shell": "sh -c 'yes | head -c 70000; echo B'"},
		{"id": "c", "shell": "sh -c 'yes | head -c 70000; echo A'"},
		{"id": "ab_equal", "tool": "notes", "depends_on": ["a", "b"], "if": "$a.output == $b.output", "input": {"body": "a == b"}},
		{"id": "ab_differ", "tool": "notes", "depends_on": ["a", "b"], "if": "$a.output != $b.output", "input": {"body": "a != b"}},
		{"id": "ac_equal", "tool": "notes", "depends_on": ["a", "c"], "if": "$a.output == $c.output", "input": {"body": "a == c"}}
	]}`)
	r := planc(t, dir, "--capsule", "capsule.json", "plan.json")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	got := map[string]string{}
	out := map[string]string{}
	for _, s := range r.report(t).Steps {
		got[s.StepID] = s.Status.String()
		if s.Output != nil {
			out[s.StepID] = *s.Output
		}
	}
	want := map[string]string{"a": "success", "b": "success", "c": "success", "ab_equal": "skipped", "ab_differ": "success", "ac_equal": "success"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("statuses (-want +got):\n%s", d)
	}
	// The control: what the report carries of a and b is the same up to
	// the mark, so only the whole texts tell them apart.
	head := func(s string) string { return s[:strings.Index(s, "\n[cut: ")] }
	if head(out["a"]) != head(out["b"]) || out["a"] == out["c"] {
		t.Errorf("the cut texts are not what the test needs: a and b differ before the mark, or a and c are equal")
	}
	b, _ := os.ReadFile(filepath.Join(oneSession(t, dir), "notes.md"))
	notes := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	slices.Sort(notes) // the two ran in the order a, b and c settled
	if d := cmp.Diff([]string{"a != b", "a == c"}, notes); d != "" {
		t.Errorf("notes.md (-want +got):\n%s", d)
	}
}

// TestRunWholeOutputTooLong: a reference to an output over 16 MiB fails
// the referring step, in input and in a condition, with an error naming
// the output's size and its kept file; nothing is dispatched and
// on_error applies.
func TestRunWholeOutputTooLong(t *testing.T) {
	testkit.NeedScope(t)
	t.Parallel()
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "capsule.json", wholeCapsule, "plan.json", `{"id": "huge", "steps": [
		{"id": "huge", "shell": "sh -c 'yes | head -c 16777217'"},
		{"id": "use", "tool": "write-file", "depends_on": ["huge"], "on_error": "continue", "retries": 2, "input": {"path": "x.txt", "content": "$huge.output"}},
		{"id": "cond", "tool": "notes", "depends_on": ["use"], "on_error": "continue", "if": "$huge.output != ''", "input": {"body": "ran"}}
	]}`)
	r := planc(t, dir, "--capsule", "capsule.json", "plan.json")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	kept := keptOutput(t, dir, "huge", 1)
	wantErr := `reference $huge.output: the output of step "huge" is 16777217 bytes, over the 16 MiB (16777216 bytes) a reference or a condition reads; it is kept whole at ` + kept + `: read it from there with a shell step (read-file, too, reads at most 16 MiB)`
	steps := r.report(t).Steps
	if len(steps) != 3 {
		t.Fatalf("report steps %+v", steps)
	}
	for _, s := range steps[1:] {
		if s.Status != vm.StatusFailed || s.Error == nil || *s.Error != wantErr {
			t.Errorf("%s: %s, error %v; want failed with %q", s.StepID, s.Status, s.Error, wantErr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.txt")); err == nil {
		t.Error("use ran")
	}
	if fi, err := os.Stat(filepath.Join(dir, kept)); err != nil || fi.Size() != 16777217 {
		t.Errorf("kept output %v, %v", fi, err)
	}
	// Neither was dispatched: no plan_step_start, no retries.
	for _, line := range stepAttempts(t, oneSession(t, dir)) {
		if strings.HasPrefix(line, "use:") && line != "use:0:failed" || strings.HasPrefix(line, "cond:") && line != "cond:0:failed" {
			t.Errorf("plan_step line %s", line)
		}
	}
}

// TestRunWholeOutputRedrive: a redrive reuses a long output without
// running its step again, and a reference to it still reads the whole
// text from the first run's kept file.
func TestRunWholeOutputRedrive(t *testing.T) {
	testkit.NeedScope(t)
	t.Parallel()
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "capsule.json", wholeCapsule, "plan.json", `{"id": "redrive", "steps": [
		{"id": "big", "shell": "sh -c 'echo ran >> runs.txt; yes abcdefghi | head -c 70001'"},
		{"id": "gate", "shell": "sh -c 'test -f marker'", "depends_on": ["big"]},
		{"id": "copy", "tool": "write-file", "depends_on": ["gate"], "input": {"path": "copy.txt", "content": "$big.output"}}
	]}`)
	first := planc(t, dir, "--capsule", "capsule.json", "plan.json")
	if first.code != 1 {
		t.Fatalf("first run: exit %d\n%s", first.code, first.stderr)
	}
	testkit.WriteFiles(t, dir, "marker", "")
	r := planc(t, dir, "--resume", "--capsule", "capsule.json")
	if r.code != 0 {
		t.Fatalf("resume: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	whole := strings.Repeat("abcdefghi\n", 7001)[:70001]
	if copied, err := os.ReadFile(filepath.Join(dir, "copy.txt")); err != nil || string(copied) != whole {
		t.Errorf("copy.txt holds %d bytes (%v), want the whole 70001", len(copied), err)
	}
	if runs, _ := os.ReadFile(filepath.Join(dir, "runs.txt")); string(runs) != "ran\n" {
		t.Errorf("big ran %q", runs)
	}
	rep := r.report(t)
	if o := rep.Steps[0].Output; rep.Steps[0].StepID != "big" || o == nil || *o != *first.report(t).Steps[0].Output {
		t.Errorf("the reused step's report output is not the first run's cut text: %s", tail(o))
	}
	want := []string{"big:1:success", "gate:1:failed", "big:1:success:reused", "gate:2:success", "copy:1:success"}
	if d := cmp.Diff(want, stepAttempts(t, oneSession(t, dir))); d != "" {
		t.Errorf("plan_step lines (-want +got):\n%s", d)
	}
}

// TestResumeInvalidUTF8Output: a reused step whose output is not valid
// UTF-8 gives on --resume the bytes it printed, as references saw them
// the first time (S20, S26), not the kept report's U+FFFD for each bad
// byte: a condition that tells them apart (raw \xff sorts after U+10000,
// U+FFFD before it) holds on the resumed run as it would have on the
// first.
func TestResumeInvalidUTF8Output(t *testing.T) {
	testkit.NeedScope(t)
	t.Parallel()
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "capsule.json", wholeCapsule, "plan.json", `{"id": "bytes", "steps": [
		{"id": "a", "shell": "sh -c 'printf \"\\377\\376abc\"'"},
		{"id": "b", "shell": "sh -c 'test -f marker'", "depends_on": ["a"]},
		{"id": "c", "tool": "notes", "depends_on": ["a", "b"], "if": "$a.output > '𐀀'", "input": {"body": "high"}}]}`)
	if r := planc(t, dir, "--capsule", "capsule.json", "plan.json"); r.code != 1 {
		t.Fatalf("first run: exit %d, want 1\n%s", r.code, r.stderr)
	}
	testkit.WriteFiles(t, dir, "marker", "")
	r := planc(t, dir, "--capsule", "capsule.json", "--resume")
	if r.code != 0 {
		t.Fatalf("resume: exit %d\n%s", r.code, r.stderr)
	}
	var got []string
	for _, s := range r.report(t).Steps {
		got = append(got, fmt.Sprint(s.StepID, ":", s.Status))
	}
	if d := cmp.Diff([]string{"a:success", "b:success", "c:success"}, got); d != "" {
		t.Errorf("resumed report (-want +got), c's condition read a's output as other bytes:\n%s", d)
	}
}
