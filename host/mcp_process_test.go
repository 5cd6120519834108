package host

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/host/shell"
)

// testServerArg makes the test binary an MCP server over stdio instead of
// running tests: `host.test mcp-test-server MODE`.
const testServerArg = "mcp-test-server"

func init() {
	if len(os.Args) > 2 && os.Args[1] == testServerArg {
		os.Exit(testServer(os.Args[2]))
	}
}

// testServer is the test binary as an MCP server. MODE serve offers echo,
// args, crash (exits 3 mid-call, saying so on standard error) and spawn
// (starts `sleep 60` and returns its pid); exit says why on standard
// error and exits 4 at once; hang never answers.
func testServer(mode string) int {
	switch mode {
	case "exit":
		fmt.Fprintln(os.Stderr, "cannot start: bad configuration")
		return 4
	case "hang":
		time.Sleep(time.Hour)
		return 0
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "host-test", Version: "1"}, nil)
	addTestTools(srv, "echo", "args")
	mcp.AddTool(srv, &mcp.Tool{Name: "crash"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		fmt.Fprintln(os.Stderr, "crashing as asked")
		os.Exit(3)
		return nil, nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "spawn"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		cmd := exec.Command("sleep", "60")
		if err := cmd.Start(); err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strconv.Itoa(cmd.Process.Pid)}}}, nil, nil
	})
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		return 1
	}
	return 0
}

// testServerCommand is the command of a test server in mode.
func testServerCommand(t *testing.T, mode string) []string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	return []string{exe, testServerArg, mode}
}

// startTestServer starts the test server in mode as MCP server name, in a
// process group, with timeout.
func startTestServer(t *testing.T, name, mode string, timeout time.Duration) (*mcpServer, error) {
	t.Helper()
	srv := ast.MCPServer{Name: name, Command: testServerCommand(t, mode)}
	s, err := startMCPServer(context.Background(), srv, t.TempDir(), "", shell.StartProcess, timeout)
	if s != nil {
		t.Cleanup(func() { s.close() })
	}
	return s, err
}

// alive reports whether process pid runs (and is no zombie).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	return !strings.Contains(string(b), ") Z ")
}

// waitGone waits up to 5 s for pid to be gone.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if !alive(pid) {
			return
		}
	}
	t.Errorf("process %d is still running", pid)
}

func TestMCPServerDies(t *testing.T) {
	s, err := startTestServer(t, "p", "serve", MCPStartTimeout)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range s.tools {
		names = append(names, tool.Name)
	}
	if got := strings.Join(names, " "); got != "args crash echo spawn" {
		t.Errorf("tools %q", got)
	}
	ctx := context.Background()
	pidText, err := s.call(ctx, "spawn", nil)
	if err != nil {
		t.Fatal(err)
	}
	child, _ := strconv.Atoi(pidText)
	start := time.Now()
	_, err = s.call(ctx, "crash", nil)
	want := `MCP server "p" exited: exit status 3; its standard error ends: "crashing as asked"`
	if err == nil || err.Error() != want {
		t.Errorf("crash: %v; want %s", err, want)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the dying server's call took %v", d)
	}
	start = time.Now()
	if _, err := s.call(ctx, "echo", nil); err == nil || err.Error() != want {
		t.Errorf("echo after the crash: %v; want %s", err, want)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("a call to a dead server took %v", d)
	}
	waitGone(t, child) // what the dead server left running goes too
	if err := s.close(); err != nil {
		t.Errorf("close: %v", err)
	}
}

func TestMCPServerClose(t *testing.T) {
	s, err := startTestServer(t, "p", "serve", MCPStartTimeout)
	if err != nil {
		t.Fatal(err)
	}
	pidText, err := s.call(context.Background(), "spawn", nil)
	if err != nil {
		t.Fatal(err)
	}
	child, _ := strconv.Atoi(pidText)
	start := time.Now()
	if err := s.close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if d := time.Since(start); d > mcpCloseGrace+10*time.Second {
		t.Errorf("close took %v", d)
	}
	if alive(s.proc.Pid()) {
		t.Errorf("the server runs after close")
	}
	waitGone(t, child)
}

func TestMCPServerStartErrors(t *testing.T) {
	_, err := startMCPServer(context.Background(), ast.MCPServer{Name: "nx", Command: []string{"planc-no-such-server"}}, "", "", shell.StartProcess, time.Second)
	if err == nil || !strings.HasPrefix(err.Error(), `MCP server "nx" did not start: cannot run "planc-no-such-server": `) {
		t.Errorf("no such command: %v", err)
	}
	_, err = startMCPServer(context.Background(), ast.MCPServer{Name: "rel", Command: []string{"./server"}}, "", t.TempDir(), shell.StartProcess, time.Second)
	if err == nil || !strings.Contains(err.Error(), `cannot run "./server"`) {
		t.Errorf("relative command: %v", err)
	}
	_, err = startTestServer(t, "x", "exit", MCPStartTimeout)
	want := `MCP server "x" did not start: it exited (exit status 4) before it answered; its standard error ends: "cannot start: bad configuration"`
	if err == nil || err.Error() != want {
		t.Errorf("exit: %v; want %s", err, want)
	}
	start := time.Now()
	_, err = startTestServer(t, "h", "hang", 300*time.Millisecond)
	want = `MCP server "h" did not start: no answer to the handshake and the tool list within 300ms`
	if err == nil || err.Error() != want {
		t.Errorf("hang: %v; want %s", err, want)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("a hanging server took %v to give up on", d)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = startMCPServer(ctx, ast.MCPServer{Name: "c", Command: testServerCommand(t, "hang")}, "", "", shell.StartProcess, time.Second)
	if err == nil || err.Error() != `MCP server "c" did not start: canceled` {
		t.Errorf("canceled: %v", err)
	}
}

// TestRunMCP runs plans with an MCP server through Run, with a fake
// scope (the servers then get a process group each).
func TestRunMCP(t *testing.T) {
	dir := t.TempDir()
	cmd, _ := jsonString(testServerCommand(t, "serve"))
	m := manifest(t, `{"name": "local/m", "capabilities": {"plan": {"submit": true}}, "tools": {"builtin": ["notes"], "mcp": {"t": {"command": `+cmd+`}}}}`)
	run := func(plan string) (*Result, error) {
		return Run(context.Background(), Config{WorkDir: dir, Manifest: m, Plan: []byte(plan),
			probe: func() error { return nil },
			open:  func(string) (shellScope, error) { return newFakeScope(), nil }})
	}
	_, err := run(`{"id": "p", "steps": [{"id": "a", "tool": "ehco", "input": {"text": "x"}}]}`)
	var re *RefusedError
	if !errors.As(err, &re) || len(re.Diagnostics) != 1 || re.Diagnostics[0].Code != "unknown-tool" || !strings.Contains(re.Diagnostics[0].Message, `did you mean "echo"?`) {
		t.Errorf("unknown tool: %v", err)
	}
	// The server's inputSchema, learnt when it starts, holds the input.
	_, err = run(`{"id": "p", "steps": [{"id": "a", "tool": "echo", "input": {"txt": "x"}}]}`)
	if !errors.As(err, &re) || len(re.Diagnostics) != 2 || re.Diagnostics[1].Code != "tool-input" || !strings.Contains(re.Diagnostics[1].Message, `unknown input field "txt"; did you mean "text"?`) {
		t.Errorf("tool input: %v", err)
	}
	res, err := run(`{"id": "p", "steps": [
		{"id": "a", "tool": "echo", "input": {"text": "x", "times": 2}},
		{"id": "b", "tool": "crash", "depends_on": ["a"], "on_error": "continue"},
		{"id": "c", "tool": "echo", "depends_on": ["b"], "on_error": "continue", "input": {"text": "y"}},
		{"id": "n", "tool": "notes", "depends_on": ["c"], "input": {"body": "$a.output"}}]}`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range res.Report.Steps {
		e := ""
		if s.Error != nil {
			e = *s.Error
		}
		got = append(got, fmt.Sprintf("%s %s %s", s.StepID, s.Status, e))
	}
	exited := `MCP server "t" exited: exit status 3; its standard error ends: "crashing as asked"`
	want := []string{"a success ", "b failed " + exited, "c failed " + exited, "n success "}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("steps:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if b, _ := os.ReadFile(res.Session.Dir + "/" + NotesFile); string(b) != "x\nx\n" {
		t.Errorf("notes.md %q", b)
	}
}

// jsonString returns ss as a JSON list of strings.
func jsonString(ss []string) (string, error) {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return "[" + strings.Join(q, ", ") + "]", nil
}
