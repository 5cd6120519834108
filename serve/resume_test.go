package serve

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/internal/testkit"
)

// failingPlan fails at "read" until input.txt exists in the working
// directory; "note" notes what "write" said.
const failingPlan = `{"id": "tools", "steps": [
	{"id": "write", "tool": "write-file", "input": {"path": "out.txt", "content": "x"}},
	{"id": "read", "tool": "read-file", "depends_on": ["write"], "input": {"path": "input.txt"}},
	{"id": "note", "tool": "notes", "depends_on": ["read"], "input": {"body": "$write.output"}}
]}`

// TestResumePlan: submit-plan fails; once its cause is fixed,
// resume-plan (by default the connection's last plan) completes it,
// reusing the step that succeeded, with a result shaped as submit-plan's;
// a second resume-plan is refused, the plan having completed.
func TestResumePlan(t *testing.T) {
	f := connect(t, Config{})
	ctx := context.Background()
	if r := f.call(t, ctx, ResumePlan, `{}`, nil); !r.IsError || !strings.Contains(texts(r)[0], "nothing to resume: this connection has run no plan yet") {
		t.Errorf("resume-plan before any plan: %q", texts(r))
	}
	first := f.call(t, ctx, SubmitPlan, failingPlan, nil)
	if !first.IsError || report(t, first).FailedStep == nil {
		t.Fatalf("submit-plan: %q", texts(first))
	}
	testkit.WriteFiles(t, f.dir, "input.txt", "in")
	r := f.call(t, ctx, ResumePlan, `{}`, nil)
	if r.IsError {
		t.Fatalf("resume-plan: %q", texts(r))
	}
	rep := report(t, r)
	var got []string
	for _, s := range rep.Steps {
		got = append(got, s.StepID+":"+s.Status.String())
	}
	if !rep.Completed || !cmp.Equal(got, []string{"write:success", "read:success", "note:success"}) {
		t.Errorf("report %+v", rep)
	}
	if r.Meta["session"] != first.Meta["session"] || r.Meta["task_id"] != "plan-1" || r.Meta["plan_file"] != first.Meta["plan_file"] {
		t.Errorf("_meta %v, first %v", r.Meta, first.Meta)
	}
	sess := r.Meta["session"].(string)
	if b, _ := os.ReadFile(filepath.Join(sess, "notes.md")); string(b) != "wrote 1 byte to out.txt\n" {
		t.Errorf("notes.md %q", b)
	}
	var redrives []any
	for _, l := range testkit.TraceLines(t, filepath.Join(sess, "trace.jsonl")) {
		if l["event"] == "plan_start" {
			redrives = append(redrives, l["redrive"])
		}
	}
	if !cmp.Equal(redrives, []any{nil, 1.0}) {
		t.Errorf("plan_start redrives %v", redrives)
	}

	again := f.call(t, ctx, ResumePlan, `{"plan": 1}`, nil)
	if !again.IsError || texts(again)[0] != "planc refused to resume plan 1; nothing ran: nothing to resume: plan 1 completed" {
		t.Errorf("resume-plan of a completed plan: %q", texts(again))
	}
	for args, want := range map[string]string{
		`{"plan": 7}`:   "nothing to resume: the session " + sess + " has no plan 7",
		`{"plan": 0}`:   "plan 0 is not a plan number",
		`{"plan": "x"}`: `resume-plan takes {"plan": N}, N a plan number of this session (or {} for the last plan): "plan" must be a number such as 1, not the string "x"`,
		`{"plan": "1"}`: `resume-plan takes {"plan": N}, N a plan number of this session (or {} for the last plan): "plan" must be a number, not the string "1"; write {"plan": 1}`,
		`{"plan": 1.5}`: `"plan" must be a whole number such as 1, not 1.5`,
		`{"plan": [1]}`: `"plan" must be a number such as 1, not [1]`,
		`{"plans": 1}`:  `resume-plan takes {"plan": N}, N a plan number of this session (or {} for the last plan): "plans" is not one of its arguments`,
	} {
		r := f.call(t, ctx, ResumePlan, args, nil)
		got := strings.Join(texts(r), "\n")
		if !r.IsError || !strings.Contains(got, want) {
			t.Errorf("resume-plan %s: %q, want %q", args, texts(r), want)
		}
		// The tool's own words: no Go decoding error.
		if strings.Contains(got, "json:") || strings.Contains(got, "Go struct") {
			t.Errorf("resume-plan %s answers with a decoding error: %q", args, got)
		}
	}
}
