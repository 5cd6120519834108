package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/host/capenv"
	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/vm"
)

// fixture is one in-memory connection: a Server serving it, and a Go SDK
// client on the other end.
type fixture struct {
	dir      string // the working directory
	cs       *mcp.ClientSession
	served   chan error // Serve's return
	stop     context.CancelFunc
	progress chan *mcp.ProgressNotificationParams
}

// connect serves cfg (WorkDir a fresh temporary directory unless set) over
// in-memory transports and connects a client. Cleanup closes the
// connection and waits for Serve to return.
func connect(t *testing.T, cfg Config) *fixture {
	t.Helper()
	if cfg.WorkDir == "" {
		cfg.WorkDir = t.TempDir()
	}
	f := &fixture{dir: cfg.WorkDir, served: make(chan error, 1), progress: make(chan *mcp.ProgressNotificationParams, 100)}
	st, ct := mcp.NewInMemoryTransports()
	ctx, stop := context.WithCancel(context.Background())
	f.stop = stop
	go func() { f.served <- New(cfg).Serve(ctx, st) }()
	client := mcp.NewClient(&mcp.Implementation{Name: "serve-test", Version: "0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) { f.progress <- r.Params },
	})
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		stop()
		t.Fatal(err)
	}
	f.cs = cs
	t.Cleanup(func() {
		cs.Close()
		select {
		case err := <-f.served:
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("Serve did not return once the client closed the connection")
		}
		stop()
	})
	return f
}

// call calls tool with the plan text as its arguments, with a progress
// token when token is not nil.
func (f *fixture) call(t *testing.T, ctx context.Context, tool, plan string, token any) *mcp.CallToolResult {
	t.Helper()
	p := &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(plan)}
	if token != nil {
		p.SetProgressToken(token)
	}
	res, err := f.cs.CallTool(ctx, p)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res
}

// texts returns a result's text contents.
func texts(r *mcp.CallToolResult) []string {
	var out []string
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			out = append(out, tc.Text)
		}
	}
	return out
}

func ptr(s string) *string { return &s }

// report decodes a result's structured content, which must equal its
// report text: the first, after the summary in a failed result.
func report(t *testing.T, r *mcp.CallToolResult) vm.Report {
	t.Helper()
	b, err := json.Marshal(r.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var rep vm.Report
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
	ts := texts(r)
	if r.IsError && len(ts) > 0 {
		ts = ts[1:]
	}
	var fromText vm.Report
	if len(ts) == 0 || json.Unmarshal([]byte(ts[0]), &fromText) != nil {
		t.Fatalf("no report text in %q", ts)
	}
	if diff := cmp.Diff(rep, fromText); diff != "" {
		t.Errorf("the text and the structured content differ (-structured +text):\n%s", diff)
	}
	return rep
}

const toolPlan = `{"id": "tools", "steps": [
	{"id": "write", "tool": "write-file", "input": {"path": "out.txt", "content": "hello"}},
	{"id": "read", "tool": "read-file", "depends_on": ["write"], "input": {"path": "out.txt"}},
	{"id": "note", "tool": "notes", "depends_on": ["read"], "if": "$read.output == 'hello'", "input": {"body": "$read.output"}}
]}`

func TestListTools(t *testing.T) {
	f := connect(t, Config{})
	res, err := f.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	var resume, submit *mcp.Tool
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		switch tool.Name {
		case ResumePlan:
			resume = tool
			continue // its arguments are no plan: below
		case ListTools:
			continue // it takes no arguments: TestListToolsTool
		case SubmitPlan:
			submit = tool
		}
		schema, _ := json.Marshal(tool.InputSchema)
		if !jsonEqual(t, schema, planSchema) {
			t.Errorf("%s's input schema is not the plan schema: %s", tool.Name, schema)
		}
		for _, want := range []string{`"depends_on"`, "$<step id>.output", "on_error", "retries", "&&", "Refused before anything runs",
			"- tool read-file: Returns the file's content: a regular file of at most 16 MiB beneath the working directory or the session directory (no `/proc`, `/sys`, `/dev`, FIFO, socket or device). Its input is an object with these members and no other:\n  - \"path\" (string, required): The file, relative"} {
			if !strings.Contains(tool.Description, want) {
				t.Errorf("%s's description lacks %q", tool.Name, want)
			}
		}
		if tool.OutputSchema == nil {
			t.Errorf("%s has no output schema", tool.Name)
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{CheckPlan, ListTools, ResumePlan, SubmitPlan}) {
		t.Fatalf("tools %v", names)
	}
	// resume-plan is described as submit-plan is: title, description,
	// input schema ({"plan": N}) and the same output schema.
	in, _ := json.Marshal(resume.InputSchema)
	if !jsonEqual(t, in, []byte(resumeSchema)) {
		t.Errorf("resume-plan's input schema: %s", in)
	}
	out, _ := json.Marshal(resume.OutputSchema)
	subOut, _ := json.Marshal(submit.OutputSchema)
	if !jsonEqual(t, out, subOut) {
		t.Errorf("resume-plan's output schema %s is not submit-plan's %s", out, subOut)
	}
	for _, want := range []string{`{"plan": N}`, "Steps that succeeded are kept", "runs again", "A plan that completed is refused", "as submit-plan returns it"} {
		if !strings.Contains(resume.Description, want) {
			t.Errorf("resume-plan's description lacks %q", want)
		}
	}
	if resume.Title == "" {
		t.Error("resume-plan has no title")
	}
}

// TestNoSubmitWithoutGrant: a manifest without capabilities.plan.submit
// gets check-plan and list-tools alone, and SubmitRefusal says why.
func TestNoSubmitWithoutGrant(t *testing.T) {
	m := manifest(t, `{"name": "local/nogrant", "tools": {"builtin": ["notes"]}}`)
	s := New(Config{Env: capenv.New(m)})
	if err := s.SubmitRefusal(); err == nil || !strings.Contains(err.Error(), "plan.submit") {
		t.Errorf("SubmitRefusal: %v", err)
	}
	f := connect(t, Config{Env: capenv.New(m)})
	res, err := f.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{CheckPlan, ListTools}) {
		t.Fatalf("tools %v", names)
	}
	r := f.call(t, context.Background(), CheckPlan, `{"id": "x", "steps": [{"id": "a", "tool": "notes", "input": {"body": "b"}}]}`, nil)
	// No submit-plan to name, in the result or the instructions.
	if r.IsError || texts(r)[0] != "no problems: a capsule that may submit plans would accept this plan" {
		t.Errorf("check-plan: %v %q", r.IsError, texts(r))
	}
	if in := f.cs.InitializeResult().Instructions; strings.Contains(in, "submit-plan") || !strings.Contains(in, "capabilities.plan.submit") {
		t.Errorf("instructions without submit-plan: %q", in)
	}
	if _, err := f.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: SubmitPlan, Arguments: map[string]any{}}); err == nil {
		t.Error("submit-plan was called")
	}
}

// manifest parses a capsule manifest.
func manifest(t *testing.T, src string) *ast.Manifest { return testkit.Manifest(t, src) }

// jsonEqual reports whether a and b are the same JSON value.
func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatal(err)
	}
	return cmp.Equal(va, vb)
}

// TestSchemaIsTheDocs: the embedded schema is docs/schema/plan.schema.json.
func TestSchemaIsTheDocs(t *testing.T) {
	b, err := os.ReadFile("../docs/schema/plan.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, planSchema) {
		t.Error("serve/plan.schema.json differs from docs/schema/plan.schema.json; copy it again")
	}
}
