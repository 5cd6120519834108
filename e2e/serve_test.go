package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/vm"
)

// The end-to-end tests of planc serve --mcp: the Go SDK's client speaking
// to the built binary over its standard input and output.

// lockedBuffer is a bytes.Buffer safe to write from the process's copier
// while a test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// serveConn is one `planc serve --mcp` process and the client connected
// to it.
type serveConn struct {
	cs       *mcp.ClientSession
	cmd      *exec.Cmd
	stderr   *lockedBuffer
	progress chan *mcp.ProgressNotificationParams
}

// startServe starts `planc serve --mcp args…` in dir with env added to
// its environment, and connects to it. Cleanup closes the connection
// (standard input), after which planc must exit 0.
func startServe(t *testing.T, dir string, env []string, args ...string) *serveConn {
	t.Helper()
	bin := plancBin(t)
	c := &serveConn{stderr: &lockedBuffer{}, progress: make(chan *mcp.ProgressNotificationParams, 100)}
	c.cmd = exec.Command(bin, append([]string{"serve", "--mcp"}, args...)...)
	c.cmd.Dir, c.cmd.Stderr = dir, c.stderr
	c.cmd.Env = append(os.Environ(), env...)
	client := mcp.NewClient(&mcp.Implementation{Name: "planc-test", Version: "0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) { c.progress <- r.Params },
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: c.cmd, TerminateDuration: 20 * time.Second}, nil)
	if err != nil {
		if c.cmd.Process != nil {
			c.cmd.Process.Kill()
		}
		t.Fatalf("connect: %v\nstderr:\n%s", err, c.stderr)
	}
	c.cs = cs
	t.Cleanup(func() {
		cs.Close() // closes planc's standard input and waits for it
		if st := c.cmd.ProcessState; st == nil || st.ExitCode() != 0 {
			t.Errorf("planc serve ended %v; stderr:\n%s", st, c.stderr)
			c.cmd.Process.Kill()
		}
	})
	return c
}

// call calls tool with plan as its arguments and a progress token when
// token is not nil.
func (c *serveConn) call(t *testing.T, tool, plan string, token any) *mcp.CallToolResult {
	t.Helper()
	p := &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(plan)}
	if token != nil {
		p.SetProgressToken(token)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := c.cs.CallTool(ctx, p)
	if err != nil {
		t.Fatalf("%s: %v\nstderr:\n%s", tool, err, c.stderr)
	}
	return r
}

// resultTexts returns a result's text contents.
func resultTexts(r *mcp.CallToolResult) []string {
	var out []string
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			out = append(out, tc.Text)
		}
	}
	return out
}

// structuredReport decodes a result's structured content as a report.
func structuredReport(t *testing.T, r *mcp.CallToolResult) vm.Report {
	t.Helper()
	b, _ := json.Marshal(r.StructuredContent)
	var rep vm.Report
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
	return rep
}

// TestServeStdio: one connection to the built binary: the tools, a
// completed plan, a failed one, a refused one, progress, and the plans
// that ran numbered in one session; nothing but MCP on standard output.
func TestServeStdio(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "in.txt", "hello")
	c := startServe(t, dir, nil)

	tools, err := c.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	if !slices.Equal(names, []string{"check-plan", "list-tools", "resume-plan", "submit-plan"}) {
		t.Errorf("tools %v", names)
	}

	r := c.call(t, "submit-plan", `{"id": "ok", "steps": [
		{"id": "read", "tool": "read-file", "input": {"path": "in.txt"}},
		{"id": "note", "tool": "notes", "depends_on": ["read"], "input": {"body": "$read.output"}}]}`, nil)
	want := vm.Report{PlanID: "ok", Completed: true, Steps: []vm.StepReport{
		{StepID: "read", Status: vm.StatusSuccess, Output: ptr("hello")},
		{StepID: "note", Status: vm.StatusSuccess, Output: ptr("appended 6 bytes to notes.md")},
	}}
	if diff := cmp.Diff(want, structuredReport(t, r)); r.IsError || diff != "" {
		t.Errorf("completed: isError %v, report (-want +got):\n%s", r.IsError, diff)
	}
	sess, _ := r.Meta["session"].(string)

	r = c.call(t, "submit-plan", `{"id": "bad", "steps": [{"id": "read", "tool": "read-file", "input": {"path": "nope.txt"}}]}`, nil)
	if ts := resultTexts(r); !r.IsError || len(ts) != 2 || ts[0] != "Plan 'bad': 1 steps, 0 succeeded, 1 failed, 0 skipped" {
		t.Errorf("failed: isError %v, texts %q", r.IsError, ts)
	}
	if rep := structuredReport(t, r); rep.FailedStep == nil || *rep.FailedStep != "read" {
		t.Errorf("failed: report %+v", rep)
	}

	r = c.call(t, "submit-plan", `{"id": "no", "steps": [{"id": "x", "tool": "nope"}]}`, nil)
	wantRefused := "planc refused the plan; nothing ran. 1 error, 0 warnings (plan:LINE:COL counts in the arguments re-indented with two spaces, one member per line):\n" +
		`plan:6:15: error: tool "nope" is not among the tools of the embedded default capsule, which has "compose", "notes", "read-file", "repo-files", "write-file" (did you mean "notes"?); run planc init to make .planc/capsule.json, then add an MCP server offering "nope" to its tools.mcp [unknown-tool]`
	if ts := resultTexts(r); !r.IsError || len(ts) != 1 || ts[0] != wantRefused {
		t.Errorf("refused: isError %v, texts %q", r.IsError, ts)
	}

	r = c.call(t, "submit-plan", `{"id": "p", "steps": [
		{"id": "a", "tool": "notes", "input": {"body": "1"}},
		{"id": "b", "tool": "notes", "depends_on": ["a"], "input": {"body": "2"}}]}`, 7)
	var got []string
	for range 2 {
		select {
		case p := <-c.progress:
			got = append(got, fmt.Sprintf("%v %g/%g %s", p.ProgressToken, p.Progress, p.Total, p.Message))
		case <-time.After(10 * time.Second):
			t.Fatalf("progress: %q", got)
		}
	}
	if want := []string{"7 1/2 a: success", "7 2/2 b: success"}; r.IsError || !slices.Equal(got, want) {
		t.Errorf("progress %q, want %q", got, want)
	}

	// The three plans that ran are plans 1, 2 and 3 of one session.
	if r.Meta["session"] != sess || r.Meta["task_id"] != "plan-3" {
		t.Errorf("_meta %v; the first plan's session %s", r.Meta, sess)
	}
	var files []string
	for _, p := range must(filepath.Glob(filepath.Join(sess, "plans", "*"))) {
		files = append(files, filepath.Base(p))
	}
	if !slices.Equal(files, []string{"plan-1.json", "plan-2.json", "plan-3.json"}) || len(sessions(t, dir)) != 1 {
		t.Errorf("plans %v in sessions %v", files, sessions(t, dir))
	}

	r = c.call(t, "check-plan", `{"id": "c", "steps": [{"id": "x", "tool": "notes", "depends_on": ["y"]}]}`, nil)
	if ts := resultTexts(r); r.IsError || !strings.HasSuffix(ts[0], `plan:8:9: error: step "x" depends on "y", which the plan does not declare; name a step declared in this plan [unknown-dependency]`) {
		t.Errorf("check-plan: isError %v, texts %q", r.IsError, ts)
	}
	if se := c.stderr.String(); se != "" {
		t.Errorf("stderr: %s", se)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestServeNoGrant: without capabilities.plan.submit only check-plan is
// offered, and standard error says why.
func TestServeNoGrant(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "capsule.json", `{"name": "local/ro", "tools": {"builtin": ["notes"]}}`)
	c := startServe(t, dir, nil, "--capsule", "capsule.json")
	tools, err := c.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != 2 || tools.Tools[0].Name != "check-plan" || tools.Tools[1].Name != "list-tools" {
		t.Errorf("tools %v", tools.Tools)
	}
	if se := c.stderr.String(); !strings.HasPrefix(se, "planc serve: no submit-plan tool, only check-plan and list-tools: ") || !strings.Contains(se, "plan.submit") {
		t.Errorf("stderr %q", se)
	}
}
