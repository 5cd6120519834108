package e2e

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/planc/planc/internal/testkit"
)

// startCancelServe starts planc serve with the test roost's capsules,
// submits cancelPlan, and returns once both sub-capsules have started:
// the connection, the session directory, and the call's outcome to come.
// The test calls needScope first (before t.Parallel: the probes must not
// race).
func startCancelServe(t *testing.T, sleepPolite, sleepStubborn string) (*serveConn, string, string, context.CancelFunc, chan error) {
	t.Helper()
	dir := t.TempDir()
	writeTestRoost(t, dir, sleepPolite, sleepStubborn)
	c := startServe(t, dir, []string{"PLANC_CAPSULE_GRACE=500ms"}, "--capsule", "capsule.json", "--roost", "roost")
	ctx, cancel := context.WithCancel(context.Background())
	called := make(chan error, 1)
	go func() {
		_, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "submit-plan", Arguments: json.RawMessage(cancelPlan)})
		called <- err
	}()
	var sess string
	testkit.Within(0, func() bool {
		if s := sessions(t, dir); len(s) == 1 {
			sess = s[0]
		}
		return sess != ""
	})
	if sess == "" {
		cancel()
		t.Fatalf("no session; stderr:\n%s", c.stderr)
	}
	testkit.WaitStarted(t, sess, 2)
	return c, dir, sess, cancel, called
}

// checkCanceled checks the trace of a plan cancelled while both
// sub-capsules ran (docs/plans.md, "Cancel": its table and numbered list), and
// that nothing of it is left running.
func checkCanceled(t *testing.T, dir, sess string, markers ...string) {
	t.Helper()
	lines := testkit.WaitEvent(t, filepath.Join(sess, "trace.jsonl"), "session_end", 1)
	settled := map[string]string{}
	var tail []string
	for _, l := range lines {
		switch e := str(l["event"]); e {
		case "plan_step":
			settled[str(l["step_id"])] = str(l["status"]) + ": " + str(l["error"])
		case "task_canceled", "delegation", "task_end", "plan_end", "session_end":
			f := strings.Join([]string{e, str(l["task_id"]), str(l["delegation_id"]), str(l["outcome"]), str(l["exit_status"])}, " ")
			tail = append(tail, strings.Join(strings.Fields(f), " "))
		}
	}
	want := map[string]string{
		"polite":   "failed: " + capsuleEnded,
		"stubborn": "failed: " + capsuleEnded,
		"later":    "skipped: the task running this plan was cancelled before this step ran",
	}
	if !mapsEqual(settled, want) {
		t.Errorf("steps settled %v, want %v", settled, want)
	}
	if len(tail) == 6 {
		slices.Sort(tail[1:3])
	}
	wantTail := []string{"task_canceled plan-1", "delegation plan-1-polite-1 terminated", "delegation plan-1-stubborn-1 terminated", "task_end plan-1 canceled", "plan_end canceled", "session_end canceled"}
	if !slices.Equal(tail, wantTail) {
		t.Errorf("the trace ends %q, want %q", tail, wantTail)
	}
	for _, m := range append(markers, "--roost "+filepath.Join(dir, "roost")) {
		if left := testkit.StillRunning(m, 0); len(left) > 0 {
			t.Errorf("%s left running: %v", m, left)
		}
	}
	if left := testkit.ScopesLeft(t, testkit.SessionID(t, sess)); len(left) > 0 {
		t.Errorf("cgroups left behind: %v", left)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestServeCancel: the client cancels the submit-plan call
// (notifications/cancelled); planc cancels the plan as docs/plans.md,
// "Cancel" says (S22, S30), keeps serving, and the next plan is plan-2 of the
// same session.
func TestServeCancel(t *testing.T) {
	testkit.NeedScope(t)
	t.Parallel()
	c, dir, sess, cancel, called := startCancelServe(t, "320.11", "320.22")
	cancel()
	if err := <-called; err == nil {
		t.Error("the cancelled call returned a result")
	}
	checkCanceled(t, dir, sess, "sleep 320.11", "sleep 320.22")
	r := c.call(t, "submit-plan", `{"id": "next", "steps": [{"id": "n", "tool": "notes", "input": {"body": "after"}}]}`, nil)
	if r.IsError || r.Meta["task_id"] != "plan-2" || r.Meta["session"] != sess {
		t.Errorf("the next plan: %q, _meta %v", resultTexts(r), r.Meta)
	}
}

// TestServeSignal: SIGTERM to planc serve while a plan runs cancels it
// the same way, and planc exits 0 once it has wound down.
func TestServeSignal(t *testing.T) {
	testkit.NeedScope(t)
	t.Parallel()
	c, dir, sess, cancel, called := startCancelServe(t, "321.11", "321.22")
	defer cancel()
	c.cmd.Process.Signal(syscall.SIGTERM)
	<-called // the connection closes, or the cancelled plan's result comes first

	checkCanceled(t, dir, sess, "sleep 321.11", "sleep 321.22")
}

// TestServeClientGone: the client going away while a plan runs
// (planc's standard input ends) cancels the plan the same way, and planc
// exits 0 once it has wound down. The client here is raw JSON-RPC: the Go
// SDK's client would not close the connection while a call is pending.
func TestServeClientGone(t *testing.T) {
	testkit.NeedScope(t)
	t.Parallel()
	dir := t.TempDir()
	writeTestRoost(t, dir, "322.11", "322.22")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, plancBin(t), "serve", "--mcp", "--capsule", "capsule.json", "--roost", "roost")
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "PLANC_CAPSULE_GRACE=500ms")
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) } // winds the plan down
	cmd.WaitDelay = 10 * time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var so, se lockedBuffer
	cmd.Stdout, cmd.Stderr = &so, &se
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	call, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call",
		"params": map[string]any{"name": "submit-plan", "arguments": json.RawMessage(cancelPlan)}})
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`+"\n"+
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+string(call)+"\n")
	var sess string
	testkit.Within(0, func() bool {
		if s := sessions(t, dir); len(s) == 1 {
			sess = s[0]
		}
		return sess != ""
	})
	if sess == "" {
		t.Fatalf("no session; stdout:\n%s\nstderr:\n%s", so.String(), se.String())
	}
	testkit.WaitStarted(t, sess, 2)
	stdin.Close()
	if err := cmd.Wait(); err != nil || ctx.Err() != nil {
		t.Errorf("planc serve: %v (%v); stderr:\n%s", err, ctx.Err(), se.String())
	}
	checkCanceled(t, dir, sess, "sleep 322.11", "sleep 322.22")
	if !strings.HasPrefix(so.String(), `{"jsonrpc":"2.0","id":1,"result":{`) {
		t.Errorf("stdout:\n%s", so.String())
	}
}

// TestServeStdoutClosed: a client that goes away closes the pipe planc
// answers on. The next answer planc writes fails (EPIPE); planc is not
// killed by SIGPIPE: it cancels the plan still running (whose shell step
// runs to its own end, S22), writes its plan_end and session_end, says so
// on standard error, and exits 0.
func TestServeStdoutClosed(t *testing.T) {
	testkit.NeedScope(t)
	t.Parallel()
	dir, cmd, stdin := rawServe(t)
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr lockedBuffer
	cmd.Stdout, cmd.Stderr = outW, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	outW.Close()
	defer cmd.Process.Kill()
	send := func(line string) {
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	if _, err := io.ReadFull(outR, make([]byte, 1)); err != nil { // the answer has begun
		t.Fatal(err)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"submit-plan","arguments":{"id":"long","steps":[{"id":"wait","shell":"sh -c 'touch started; while [ ! -e go ]; do sleep 0.01; done; echo went'"}]}}}`)
	if !testkit.Within(0, func() bool { _, err := os.Stat(filepath.Join(dir, "started")); return err == nil }) {
		t.Fatalf("the step did not start; stderr:\n%s", stderr.String())
	}
	outR.Close() // the client goes away, its end of the input still open
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"submit-plan","arguments":{"id":"short","steps":[{"id":"n","tool":"notes","input":{"body":"x"}}]}}}`)
	if !testkit.Within(0, func() bool { return strings.Contains(stderr.String(), "standard output is closed") }) {
		t.Fatalf("no note that the client went away; stderr:\n%s", stderr.String())
	}
	os.WriteFile(filepath.Join(dir, "go"), nil, 0o644) // the running step may end now
	err = cmd.Wait()
	if st := cmd.ProcessState; st == nil || !st.Exited() || st.ExitCode() != 0 {
		t.Fatalf("planc serve ended %v (%v), want exit 0; stderr:\n%s", st, err, stderr.String())
	}
	sess := oneSession(t, dir)
	lines := testkit.TraceLines(t, filepath.Join(sess, "trace.jsonl"))
	ends := map[string]string{}
	var sessionEnds int
	for _, l := range lines {
		switch l["event"] {
		case "plan_end":
			ends[l["plan_id"].(string)] = l["outcome"].(string)
		case "session_end":
			sessionEnds++
		}
	}
	if ends["long"] != "canceled" || ends["short"] == "" || sessionEnds != 2 {
		t.Errorf("plan ends %v, %d session_end lines; want long canceled, short ended, both runs ended", ends, sessionEnds)
	}
}

// TestServeNoProgressAfterCancel: once the client cancels a submit-plan
// call, planc sends no more progress notifications with its token (MCP:
// progress only for an active request), though the plan winds down: its
// running step settles after the cancel, its next step is skipped.
func TestServeNoProgressAfterCancel(t *testing.T) {
	testkit.NeedScope(t)
	t.Parallel()
	dir, cmd, stdin := rawServe(t)
	var so, se lockedBuffer
	cmd.Stdout, cmd.Stderr = &so, &se
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`+"\n"+
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":"tok"},"name":"submit-plan","arguments":{"id":"p","steps":[`+
		`{"id":"wait","shell":"sh -c 'touch started; while [ ! -e go ]; do sleep 0.01; done'"},{"id":"after","tool":"notes","depends_on":["wait"],"input":{"body":"x"}}]}}}`+"\n")
	if !testkit.Within(0, func() bool { _, err := os.Stat(filepath.Join(dir, "started")); return err == nil }) {
		t.Fatalf("the step did not start; stderr:\n%s", se.String())
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`+"\n")
	sess := oneSession(t, dir)
	// The cancel has landed once the step after is skipped.
	if !testkit.Within(0, func() bool {
		b, _ := os.ReadFile(filepath.Join(sess, "trace.jsonl"))
		return strings.Contains(string(b), `"step_id":"after","status":"skipped"`)
	}) {
		t.Fatalf("the cancel did not land; stderr:\n%s", se.String())
	}
	os.WriteFile(filepath.Join(dir, "go"), nil, 0o644)
	testkit.WaitEvent(t, filepath.Join(sess, "trace.jsonl"), "session_end", 1)
	stdin.Close() // planc exits once every call is done: its progress sent or dropped
	if err := cmd.Wait(); err != nil {
		t.Fatalf("planc serve: %v; stderr:\n%s", err, se.String())
	}
	for _, l := range strings.Split(so.String(), "\n") {
		if strings.Contains(l, `"notifications/progress"`) {
			t.Errorf("progress after the cancel: %s", l)
		}
	}
}

// rawServe makes a directory with a capsule that allows sh and notes, and
// the planc serve --mcp command to run there, not started, with its
// standard input as a pipe: a test drives it with raw JSON-RPC lines.
func rawServe(t *testing.T) (dir string, cmd *exec.Cmd, stdin io.WriteCloser) {
	t.Helper()
	dir = t.TempDir()
	testkit.WriteFiles(t, dir, "capsule.json", `{"name": "local/raw", "capabilities": {"plan": {"submit": true}, "shell": {"allow": ["sh"]}}, "tools": {"builtin": ["notes"]}}`)
	cmd = exec.Command(plancBin(t), "serve", "--mcp", "--capsule", "capsule.json")
	cmd.Dir = dir
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	return dir, cmd, stdin
}
