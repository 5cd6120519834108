package e2e

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/internal/testkit"
)

// events returns each line's "event STEP" (or "event" alone).
func events(lines []map[string]any) []string {
	var out []string
	for _, l := range lines {
		e := l["event"].(string)
		if s, ok := l["step_id"].(string); ok {
			e += " " + s
		}
		out = append(out, e)
	}
	return out
}

func TestRunSessionAndTrace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "plan.json", toolPlan, "src/a.go", "")
	if r := planc(t, dir, "plan.json"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	sess := oneSession(t, dir)
	id := filepath.Base(sess)
	if !regexp.MustCompile(`^\d{8}T\d{6}Z-[0-9a-f]{6}$`).MatchString(id) {
		t.Errorf("session directory %q is not <UTC time>-<6 hex>", id)
	}
	var info map[string]any
	b, err := os.ReadFile(filepath.Join(sess, "session.json"))
	if err != nil || json.Unmarshal(b, &info) != nil {
		t.Fatalf("session.json: %v %s", err, b)
	}
	if info["session"] != id || info["capsule"] != "local/planc" || info["version"] != "0.1.0" || info["spawned_by"] != nil || info["delegation_id"] != nil {
		t.Errorf("session.json: %s", b)
	}
	if _, err := time.Parse(time.RFC3339Nano, fmt.Sprint(info["started"])); err != nil {
		t.Errorf("started: %v", err)
	}
	pf := filepath.Join(sess, "plans", "plan-1.json")
	fi, err := os.Stat(pf)
	if err != nil || fi.Mode().Perm() != 0o444 {
		t.Fatalf("plan file: %v %v", fi, err)
	}
	got, _ := os.ReadFile(pf)
	if sha256.Sum256(got) != sha256.Sum256([]byte(toolPlan)) {
		t.Errorf("the plan file does not hold the plan's bytes")
	}

	lines := testkit.TraceLines(t, filepath.Join(sess, "trace.jsonl"))
	want := []string{"session_start", "plan_start",
		"plan_step_start list", "plan_step list", "plan_step_start write", "plan_step write",
		"plan_step_start read", "plan_step read", "plan_step_start note", "plan_step note",
		"plan_step never", "plan_end", "session_end"}
	if diff := cmp.Diff(want, events(lines)); diff != "" {
		t.Errorf("trace events (-want +got):\n%s", diff)
	}
	for _, l := range lines {
		if l["session"] != id {
			t.Errorf("line names session %v, want %s", l["session"], id)
		}
	}
	if lines[1]["plan_file"] != "plans/plan-1.json" || lines[1]["steps"] != 5.0 {
		t.Errorf("plan_start: %v", lines[1])
	}
	if lines[len(lines)-1]["exit_status"] != "ok" || lines[len(lines)-2]["outcome"] != "completed" {
		t.Errorf("plan_end, session_end: %v %v", lines[len(lines)-2], lines[len(lines)-1])
	}
}

// TestRunSharedSession: two runs at once in one --session directory get
// plans/plan-1.json and plans/plan-2.json, and the trace stays whole.
func TestRunSharedSession(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "plan.json", toolPlan, "src/a.go", "")
	shared := filepath.Join(dir, "shared")
	var wg sync.WaitGroup
	outs := make([]runOut, 2)
	for i := range outs {
		wg.Go(func() { outs[i] = planc(t, dir, "--session", shared, "plan.json") })
	}
	wg.Wait()
	for i, r := range outs {
		if r.code != 0 {
			t.Fatalf("run %d: exit %d: %s", i, r.code, r.stderr)
		}
	}
	plans, _ := filepath.Glob(filepath.Join(shared, "plans", "*"))
	if diff := cmp.Diff([]string{filepath.Join(shared, "plans", "plan-1.json"), filepath.Join(shared, "plans", "plan-2.json")}, plans); diff != "" {
		t.Errorf("plan files (-want +got):\n%s", diff)
	}
	lines := testkit.TraceLines(t, filepath.Join(shared, "trace.jsonl"))
	counts := map[string]int{}
	files := map[any]bool{}
	for _, l := range lines {
		counts[l["event"].(string)]++
		if l["event"] == "plan_start" {
			files[l["plan_file"]] = true
		}
	}
	if counts["session_start"] != 2 || counts["plan_start"] != 2 || counts["plan_end"] != 2 || counts["session_end"] != 2 || !files["plans/plan-1.json"] || !files["plans/plan-2.json"] {
		t.Errorf("trace: %v %v", counts, files)
	}
	// A third run reuses the session and takes the next number.
	if r := planc(t, dir, "--session", shared, "plan.json"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(shared, "plans", "plan-3.json")); err != nil {
		t.Error(err)
	}
	if s := sessions(t, dir); len(s) != 0 {
		t.Errorf("--session also made %v", s)
	}
}
