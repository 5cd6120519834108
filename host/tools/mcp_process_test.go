//go:build unix

package tools

import (
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/host/sandbox"
	"github.com/planc/planc/internal/testkit"
)

func init() { testkit.ServeMCPIfAsked() }

// startTestServer starts the test server in mode as MCP server name, in a
// process group, with timeout.
func startTestServer(t *testing.T, name, mode string, timeout time.Duration) (*mcpServer, error) {
	t.Helper()
	srv := ast.MCPServer{Name: name, Command: testkit.MCPServerCommand(t, mode)}
	s, err := startMCPServer(context.Background(), srv, Launch{Dir: t.TempDir(), Start: sandbox.StartProcess, Timeout: timeout})
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

// waitGone waits (testkit.Patience) for pid to be gone: a busy machine
// may take a while to end it, and the wait ends the moment it does.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	if !testkit.WaitExit(pid, 0) {
		t.Errorf("process %d is still running", pid)
	}
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
	if got := strings.Join(names, " "); got != "args crash echo look spawn wait" {
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
	_, err := startMCPServer(context.Background(), ast.MCPServer{Name: "nx", Command: []string{"planc-no-such-server"}}, Launch{Start: sandbox.StartProcess, Timeout: time.Second})
	if err == nil || !strings.HasPrefix(err.Error(), `MCP server "nx" did not start: cannot run "planc-no-such-server": `) {
		t.Errorf("no such command: %v", err)
	}
	_, err = startMCPServer(context.Background(), ast.MCPServer{Name: "rel", Command: []string{"./server"}}, Launch{ManifestDir: t.TempDir(), Start: sandbox.StartProcess, Timeout: time.Second})
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
	_, err = startMCPServer(ctx, ast.MCPServer{Name: "c", Command: testkit.MCPServerCommand(t, "hang")}, Launch{Start: sandbox.StartProcess, Timeout: time.Second})
	if err == nil || err.Error() != `MCP server "c" did not start: canceled` {
		t.Errorf("canceled: %v", err)
	}
}
