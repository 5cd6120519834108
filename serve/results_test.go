package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/vm"
)

// The tools' results over in-memory transports: submit-plan's outcomes,
// check-plan, progress, sessions, output schemas.

func TestSubmitCompleted(t *testing.T) {
	f := connect(t, Config{})
	r := f.call(t, context.Background(), SubmitPlan, toolPlan, nil)
	if r.IsError {
		t.Fatalf("isError: %q", texts(r))
	}
	want := vm.Report{PlanID: "tools", Completed: true, Steps: []vm.StepReport{
		{StepID: "write", Status: vm.StatusSuccess, Output: ptr("wrote 5 bytes to out.txt")},
		{StepID: "read", Status: vm.StatusSuccess, Output: ptr("hello")},
		{StepID: "note", Status: vm.StatusSuccess, Output: ptr("appended 6 bytes to notes.md")},
	}}
	if diff := cmp.Diff(want, report(t, r)); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
	if n := len(texts(r)); n != 1 {
		t.Errorf("%d texts, want the report alone", n)
	}
	sess, _ := r.Meta["session"].(string)
	if filepath.Dir(sess) != filepath.Join(f.dir, ".planc", "sessions") || r.Meta["task_id"] != "plan-1" {
		t.Errorf("_meta %v", r.Meta)
	}
	// The plan file is the arguments re-indented: what positions count in.
	b, err := os.ReadFile(filepath.Join(sess, "plans", "plan-1.json"))
	if err != nil || !strings.HasPrefix(string(b), "{\n  \"id\": \"tools\",\n  \"steps\": [\n    {\n") {
		t.Errorf("plan file %q, %v", b, err)
	}
	if b, _ := os.ReadFile(filepath.Join(sess, "notes.md")); string(b) != "hello\n" {
		t.Errorf("notes.md %q", b)
	}
}

func TestSubmitFailed(t *testing.T) {
	f := connect(t, Config{})
	r := f.call(t, context.Background(), SubmitPlan, `{"id": "broken", "steps": [
		{"id": "read", "tool": "read-file", "input": {"path": "missing.txt"}},
		{"id": "after", "tool": "notes", "depends_on": ["read"], "input": {"body": "x"}},
		{"id": "other", "tool": "notes", "input": {"body": "y"}}
	]}`, nil)
	ts := texts(r)
	if !r.IsError || len(ts) != 2 || ts[0] != "Plan 'broken': 3 steps, 0 succeeded, 1 failed, 0 skipped" {
		t.Fatalf("isError %v, texts %q", r.IsError, ts)
	}
	rep := report(t, r)
	if rep.Completed || rep.Canceled || rep.FailedStep == nil || *rep.FailedStep != "read" || len(rep.Steps) != 1 {
		t.Errorf("report %+v", rep)
	}
}

func TestSubmitRefused(t *testing.T) {
	f := connect(t, Config{})
	r := f.call(t, context.Background(), SubmitPlan, `{"id": "bad", "steps": [{"id": "a", "tool": "reed-file", "input": {"path": "x"}}, {"id": "b", "shell": "ls", "depends_on": ["c"]}]}`, nil)
	want := `planc refused the plan; nothing ran. 3 errors, 0 warnings (plan:LINE:COL counts in the arguments re-indented with two spaces, one member per line):
plan:6:15: error: tool "reed-file" is not among the tools of the embedded default capsule, which has "compose", "notes", "read-file", "repo-files", "write-file" (did you mean "read-file"?); run planc init to make .planc/capsule.json, then add an MCP server offering "reed-file" to its tools.mcp [unknown-tool]
plan:13:16: error: "ls" is not in capabilities.shell.allow of the embedded default capsule; run planc init to make .planc/capsule.json, then add "ls" to its capabilities.shell.allow [shell-not-allowed]
plan:15:9: error: step "b" depends on "c", which the plan does not declare; did you mean "a"? [unknown-dependency]`
	if ts := texts(r); !r.IsError || len(ts) != 1 || ts[0] != want {
		t.Errorf("isError %v, texts:\n%s", r.IsError, strings.Join(ts, "\n--\n"))
	}
	if r.StructuredContent != nil {
		t.Errorf("structured content %v", r.StructuredContent)
	}
	if _, err := os.Stat(filepath.Join(f.dir, ".planc")); err == nil {
		t.Error("a refused plan made a session")
	}
	// Not even JSON of a plan's shape: the parser's diagnostics.
	r = f.call(t, context.Background(), SubmitPlan, `{"steps": "no"}`, nil)
	if ts := texts(r); !r.IsError || !strings.Contains(ts[0], "plan:1:1: error:") {
		t.Errorf("isError %v, texts %q", r.IsError, ts)
	}
}

func TestCheckPlan(t *testing.T) {
	f := connect(t, Config{})
	r := f.call(t, context.Background(), CheckPlan, `{"id": "c", "steps": [{"id": "a", "tool": "notes", "input": {"body": "x"}}, {"id": "b", "tool": "nope"}]}`, nil)
	if r.IsError {
		t.Fatalf("isError: %q", texts(r))
	}
	if ts := texts(r); len(ts) != 1 || !strings.HasPrefix(ts[0], "1 error, 0 warnings; submit-plan would refuse this plan") || !strings.HasSuffix(ts[0], "\nplan:13:15: error: tool \"nope\" is not among the tools of the embedded default capsule, which has \"compose\", \"notes\", \"read-file\", \"repo-files\", \"write-file\" (did you mean \"notes\"?); run planc init to make .planc/capsule.json, then add an MCP server offering \"nope\" to its tools.mcp [unknown-tool]") {
		t.Errorf("texts %q", ts)
	}
	b, _ := json.Marshal(r.StructuredContent)
	want := `{"diagnostics":[{"file":"plan","line":13,"col":15,"end_line":13,"end_col":21,"severity":"error","code":"unknown-tool","message":"tool \"nope\" is not among the tools of the embedded default capsule, which has \"compose\", \"notes\", \"read-file\", \"repo-files\", \"write-file\" (did you mean \"notes\"?); run planc init to make .planc/capsule.json, then add an MCP server offering \"nope\" to its tools.mcp","step":"b","suggestion":"notes"}],"errors":1,"warnings":0}`
	if !jsonEqual(t, b, []byte(want)) {
		t.Errorf("structured content %s", b)
	}
	r = f.call(t, context.Background(), CheckPlan, `{"id": "c", "steps": []}`, nil)
	if ts := texts(r); r.IsError || ts[0] != "no problems: submit-plan would accept this plan" {
		t.Errorf("isError %v, texts %q", r.IsError, ts)
	}
	if _, err := os.Stat(filepath.Join(f.dir, ".planc")); err == nil {
		t.Error("check-plan made a session")
	}
}

// TestProgress: one notification per settled step, a retried step's
// attempts counting once, in order, before the result.
func TestProgress(t *testing.T) {
	f := connect(t, Config{})
	r := f.call(t, context.Background(), SubmitPlan, `{"id": "p", "steps": [
		{"id": "a", "tool": "notes", "input": {"body": "x"}},
		{"id": "flaky", "tool": "read-file", "input": {"path": "missing"}, "retries": 2, "on_error": "continue", "depends_on": ["a"]},
		{"id": "b", "tool": "notes", "depends_on": ["flaky"], "if": "$flaky.status == 'success'", "input": {"body": "y"}}
	]}`, "tok-1")
	if r.IsError {
		t.Fatalf("isError: %q", texts(r))
	}
	want := []string{"tok-1 1/3 a: success", "tok-1 2/3 flaky: failed: read-file: open missing: no such file or directory", "tok-1 3/3 b: skipped"}
	var got []string
	for range want {
		select {
		case p := <-f.progress:
			got = append(got, progressLine(p))
		case <-time.After(10 * time.Second):
			t.Fatalf("progress: have %q, want %q", got, want)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
	// Without a token, none.
	f.call(t, context.Background(), SubmitPlan, toolPlan, nil)
	select {
	case p := <-f.progress:
		t.Errorf("progress without a token: %v", progressLine(p))
	case <-time.After(200 * time.Millisecond):
	}
}

// progressLine renders a notification as "TOKEN n/total message".
func progressLine(p *mcp.ProgressNotificationParams) string {
	return fmt.Sprintf("%v %g/%g %s", p.ProgressToken, p.Progress, p.Total, p.Message)
}

// TestTwoPlansOneSession: the plans of one connection share its session,
// numbered 1 and 2; another connection gets a session of its own.
func TestTwoPlansOneSession(t *testing.T) {
	dir := t.TempDir()
	f := connect(t, Config{WorkDir: dir})
	r1 := f.call(t, context.Background(), SubmitPlan, toolPlan, nil)
	r2 := f.call(t, context.Background(), SubmitPlan, `{"id": "second", "steps": [{"id": "n", "tool": "notes", "input": {"body": "two"}}]}`, nil)
	if r1.IsError || r2.IsError {
		t.Fatalf("%q %q", texts(r1), texts(r2))
	}
	if r1.Meta["session"] != r2.Meta["session"] || r1.Meta["task_id"] != "plan-1" || r2.Meta["task_id"] != "plan-2" {
		t.Errorf("_meta %v and %v", r1.Meta, r2.Meta)
	}
	sess := r1.Meta["session"].(string)
	plans, _ := filepath.Glob(filepath.Join(sess, "plans", "*.json"))
	if len(plans) != 2 || filepath.Base(plans[0]) != "plan-1.json" || filepath.Base(plans[1]) != "plan-2.json" {
		t.Errorf("plans %v", plans)
	}
	var starts []string
	for _, l := range testkit.TraceLines(t, filepath.Join(sess, "trace.jsonl")) {
		if l["event"] == "plan_start" {
			starts = append(starts, l["plan_id"].(string)+" "+l["plan_file"].(string))
		}
	}
	if !slices.Equal(starts, []string{"tools plans/plan-1.json", "second plans/plan-2.json"}) {
		t.Errorf("plan_start lines %v", starts)
	}
	g := connect(t, Config{WorkDir: dir})
	r3 := g.call(t, context.Background(), SubmitPlan, toolPlan, nil)
	if r3.Meta["session"] == sess || r3.Meta["task_id"] != "plan-1" {
		t.Errorf("a second connection: _meta %v", r3.Meta)
	}
}

// TestOutputSchemas: the structured content of every kind of result
// conforms to the tool's output schema, as clients such as the
// TypeScript SDK check (even in a failed result); warnings of a plan
// that runs come after the report.
func TestOutputSchemas(t *testing.T) {
	compile := func(name, src string) *jsonschema.Schema {
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(src))
		if err != nil {
			t.Fatal(err)
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource(name, doc); err != nil {
			t.Fatal(err)
		}
		s, err := c.Compile(name)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	rs, ds := compile("report.json", reportSchema), compile("diagnostics.json", diagnosticsSchema)
	f := connect(t, Config{})
	ctx := context.Background()
	warned := `{"id": "w", "steps": [{"id": "a", "tool": "notes", "input": {"body": "x"}}, {"id": "b", "tool": "notes", "depends_on": ["a", "a"], "input": {"body": "y"}}]}`
	for _, c := range []struct {
		tool, plan string
		schema     *jsonschema.Schema
	}{
		{SubmitPlan, toolPlan, rs},
		{SubmitPlan, `{"id": "f", "steps": [{"id": "r", "tool": "read-file", "input": {"path": "nope"}}]}`, rs},
		{SubmitPlan, `{"id": "e", "steps": []}`, rs},
		{SubmitPlan, warned, rs},
		{CheckPlan, `{"id": "c", "steps": [{"id": "b", "tool": "nope"}]}`, ds},
		{CheckPlan, warned, ds},
		{CheckPlan, toolPlan, ds},
	} {
		r := f.call(t, ctx, c.tool, c.plan, nil)
		b, _ := json.Marshal(r.StructuredContent)
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.schema.Validate(inst); err != nil {
			t.Errorf("%s %s: %s does not conform: %v", c.tool, c.plan, b, err)
		}
	}
	r := f.call(t, ctx, SubmitPlan, warned, nil)
	want := "warnings:\nplan:16:9: warning: step \"b\" depends on \"a\" twice; remove the second entry [duplicate-dependency]"
	if ts := texts(r); r.IsError || len(ts) != 2 || ts[1] != want {
		t.Errorf("isError %v, texts %q", r.IsError, ts)
	}
}
