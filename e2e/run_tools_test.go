package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/vm"
)

// TestRunCutOutput: an output over 64 KiB is cut on a UTF-8 boundary and
// marked, the whole text kept under outputs/plan-<n>/ (S20, S24); a
// reference sees the whole text.
func TestRunCutOutput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	big := strings.Repeat("a", 64<<10-1) + "€" + strings.Repeat("z", 1000)
	testkit.WriteFiles(t, dir, "big.txt", big, "plan.json", `{"id": "cut", "steps": [
		{"id": "read", "tool": "read-file", "input": {"path": "big.txt"}},
		{"id": "copy", "tool": "write-file", "depends_on": ["read"], "input": {"path": "copy.txt", "content": "$read.output"}}
	]}`)
	r := planc(t, dir, "plan.json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	sess := oneSession(t, dir)
	rel, _ := filepath.Rel(dir, filepath.Join(sess, "outputs", "plan-1", "read.1.txt"))
	wantOut := strings.Repeat("a", 64<<10-1) + fmt.Sprintf("\n[cut: %d bytes in all; whole text at %s]", len(big), rel)
	rep := r.report(t)
	if got := rep.Steps[0].Output; got == nil || *got != wantOut {
		t.Errorf("cut output ends %q, want %q", tail(got), wantOut[len(wantOut)-120:])
	}
	if whole, err := os.ReadFile(filepath.Join(dir, rel)); err != nil || string(whole) != big {
		t.Errorf("whole text: %d bytes, %v", len(whole), err)
	}
	if copied, _ := os.ReadFile(filepath.Join(dir, "copy.txt")); string(copied) != big {
		t.Errorf("the reference did not see the whole text (%d bytes, want %d)", len(copied), len(big))
	}
}

func tail(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return (*s)[max(0, len(*s)-120):]
}

// TestRunToolRefusals: read_only and a deny hook refuse a tool step before
// dispatch; it settles failed with the refusal, nothing is written, the
// trace has the refusal's line, and on_error applies.
func TestRunToolRefusals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "capsule/capsule.json", `{
		"name": "local/guarded",
		"capabilities": {"plan": {"submit": true}, "filesystem": {"read_only": ["../src"]}},
		"tools": {"builtin": ["write-file", "notes", "read-file"]},
		"hooks": [{"on": "on-shell", "commit_policy": "deny"}, {"on": "on-tool-call", "match": "note*", "commit_policy": "deny"}]
	}`, "src/keep.go", "package keep\n", "plan.json", `{"id": "guard", "steps": [
		{"id": "ro", "tool": "write-file", "on_error": "continue", "input": {"path": "src/keep.go", "content": "x"}},
		{"id": "own", "tool": "write-file", "on_error": "continue", "depends_on": ["ro"], "input": {"path": "PLANFILE", "content": "{}"}},
		{"id": "hook", "tool": "notes", "on_error": "continue", "depends_on": ["own"], "input": {"body": "x"}},
		{"id": "ok", "tool": "write-file", "depends_on": ["hook"], "input": {"path": "out/fine.txt", "content": "fine"}}
	]}`)
	shared := filepath.Join(dir, "s")
	// The plan will be plans/plan-1.json of this session: let the step aim at it.
	plan, _ := os.ReadFile(filepath.Join(dir, "plan.json"))
	testkit.WriteFiles(t, dir, "plan.json", strings.Replace(string(plan), "PLANFILE", filepath.Join(shared, "plans", "plan-1.json"), 1))
	r := planc(t, dir, "--capsule", "capsule/capsule.json", "--session", shared, "plan.json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s\n%s", r.code, r.stdout, r.stderr)
	}
	rep := r.report(t)
	if len(rep.Steps) != 4 {
		t.Fatalf("report: %+v", rep)
	}
	for i, want := range []string{"read_only", "plan files", "hook", ""} {
		s := rep.Steps[i]
		if want == "" {
			if s.Status != vm.StatusSuccess {
				t.Errorf("%s: %s %v", s.StepID, s.Status, s.Error)
			}
			continue
		}
		if s.Status != vm.StatusFailed || s.Error == nil || !strings.Contains(*s.Error, want) || s.Output != nil {
			t.Errorf("%s: status %s, error %v, want a refusal naming %s", s.StepID, s.Status, deref(s.Error), want)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "src", "keep.go")); string(b) != "package keep\n" {
		t.Errorf("the read-only file was written: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(shared, "plans", "plan-1.json")); !strings.HasPrefix(string(b), `{"id": "guard"`) {
		t.Errorf("the plan file was written: %q", b)
	}
	lines := testkit.TraceLines(t, filepath.Join(shared, "trace.jsonl"))
	var denied []string
	for _, l := range lines {
		switch l["event"] {
		case "protected_path_denied":
			denied = append(denied, fmt.Sprintf("%v %v %v", l["event"], l["step_id"], l["path"]))
		case "call_denied":
			denied = append(denied, fmt.Sprintf("%v %v %v %v", l["event"], l["step_id"], l["hook"], l["on"]))
		case "plan_step_start":
			if id := l["step_id"]; id != "ok" {
				t.Errorf("refused step %v was dispatched", id)
			}
		}
	}
	want := []string{
		"protected_path_denied ro " + filepath.Join(dir, "src", "keep.go"),
		"protected_path_denied own " + filepath.Join(shared, "plans", "plan-1.json"),
		"call_denied hook 1 on-tool-call",
	}
	if strings.Join(denied, "\n") != strings.Join(want, "\n") {
		t.Errorf("refusal lines:\n%s\nwant:\n%s", strings.Join(denied, "\n"), strings.Join(want, "\n"))
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// TestRunTraceAfterKill: planc killed with SIGKILL in the middle of a run
// leaves a trace whose every line is whole JSON.
func TestRunTraceAfterKill(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var steps []string
	for i := range 3000 {
		steps = append(steps, fmt.Sprintf(`{"id": "n%d", "tool": "notes", "input": {"body": "note %d"}}`, i, i))
	}
	testkit.WriteFiles(t, dir, "plan.json", `{"id": "many", "steps": [`+strings.Join(steps, ",\n")+`]}`)
	cmd := plancCmd(t, dir, "--quiet", "plan.json")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill it once the trace has started to grow.
	testkit.Eventually(t, 0, "the trace to grow past 20000 bytes", func() bool {
		s := sessions(t, dir)
		if len(s) != 1 {
			return false
		}
		fi, err := os.Stat(filepath.Join(s[0], "trace.jsonl"))
		return err == nil && fi.Size() > 20000
	})
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	sess := oneSession(t, dir)
	lines := testkit.TraceLines(t, filepath.Join(sess, "trace.jsonl"))
	if len(lines) < 10 {
		t.Fatalf("only %d trace lines", len(lines))
	}
	f, _ := os.Open(filepath.Join(sess, "trace.jsonl"))
	defer f.Close()
	rd := bufio.NewReader(f)
	for {
		line, err := rd.ReadString('\n')
		if err != nil {
			if line != "" {
				t.Errorf("the trace ends in a torn line: %q", line)
			}
			break
		}
		if !json.Valid([]byte(line)) {
			t.Errorf("torn line %q", line)
		}
	}
	t.Logf("%d whole lines before SIGKILL", len(lines))
}
