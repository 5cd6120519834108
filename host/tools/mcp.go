package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/host/protect/envpolicy"
	"github.com/planc/planc/host/sandbox"
	"github.com/planc/planc/internal/procexit"
)

// MCPStartTimeout bounds how long an MCP server has to start, answer the
// handshake and list its tools, in `planc run` and `planc check` alike.
const MCPStartTimeout = 10 * time.Second

// mcpCloseGrace is how long a server has to exit by itself once its
// standard input is closed at the end of the run, before its whole process
// tree is killed.
const mcpCloseGrace = 2 * time.Second

// mcpExitWait is how long a call that failed on the connection waits for
// the server's process to exit, to tell "the server died" from other
// protocol errors.
const mcpExitWait = time.Second

// mcpClient is how planc introduces itself to MCP servers.
var mcpClient = &mcp.Implementation{Name: "planc", Version: "0.1.0-dev"}

// mcpServer is one MCP server of the manifest's tools.mcp, connected: its
// session, its tools as it listed them, and its process (nil for an
// in-memory server in tests).
type mcpServer struct {
	name    string
	session *mcp.ClientSession
	tools   []*mcp.Tool
	proc    *sandbox.Process
	stderr  tail
}

// StartFunc starts a server's process: in a leaf cgroup of the plan's
// scope (host/sandbox's Scope.StartProcess) or in a process group of its
// own (sandbox.StartProcess).
type StartFunc func(cmd *exec.Cmd) (*sandbox.Process, error)

// Launch is how a run starts its MCP servers.
type Launch struct {
	// Dir is the servers' working directory ("" is the current one);
	// ManifestDir is where a command's first word with a slash starts.
	Dir, ManifestDir string
	// Start starts each server's process.
	Start StartFunc
	// Timeout bounds the handshake and the tool list of each server.
	Timeout time.Duration
}

// startMCPServer starts srv's command over stdio as l says and connects
// to it: the handshake and the tool list must come within l.Timeout. A
// first word with a slash is relative to l.ManifestDir
// (docs/manifest.md). The error names the server and says what happened.
func startMCPServer(ctx context.Context, srv ast.MCPServer, l Launch) (*mcpServer, error) {
	s := &mcpServer{name: srv.Name}
	path, err := sandbox.Resolve(srv.Command[0], l.ManifestDir)
	if err != nil {
		return nil, s.startError(err)
	}
	var pipes [6]*os.File // stdin r, w; stdout r, w; stderr r, w
	for i := 0; i < len(pipes); i += 2 {
		if pipes[i], pipes[i+1], err = os.Pipe(); err != nil {
			closeAll(pipes[:i]...)
			return nil, s.startError(err)
		}
	}
	cmd := &exec.Cmd{Path: path, Args: srv.Command, Dir: l.Dir, Stdin: pipes[0], Stdout: pipes[3], Stderr: pipes[5],
		Env: envpolicy.Environ(os.Environ(), ast.EnvMap(srv.Env))}
	s.proc, err = l.Start(cmd)
	closeAll(pipes[0], pipes[3], pipes[5]) // the server's ends
	if err != nil {
		closeAll(pipes[1], pipes[2], pipes[4])
		return nil, s.startError(err)
	}
	s.stderr.eof = make(chan struct{})
	go s.stderr.drain(pipes[4])
	go func() {
		// A server whose main process is gone is dead: what it left
		// running goes too, which also ends its standard output.
		<-s.proc.Done()
		s.proc.Kill()
	}()

	ctx, cancel := context.WithTimeout(ctx, l.Timeout)
	defer cancel()
	go func() {
		select {
		case <-s.proc.Done():
			cancel()
		case <-ctx.Done():
		}
	}()
	err = s.handshake(ctx, &mcp.IOTransport{Reader: pipes[2], Writer: pipes[1]})
	if err != nil {
		// A server that exits makes the handshake fail a moment before
		// its process is reaped: wait for that, unless time ran out.
		exited := waitDone(s.proc.Done(), 0) || !errors.Is(ctx.Err(), context.DeadlineExceeded) && waitDone(s.proc.Done(), mcpExitWait)
		s.proc.Stop()
		closeAll(pipes[1], pipes[2]) // most often closed with the session already
		switch {
		case exited:
			err = fmt.Errorf("it exited (%s) before it answered", exitText(s.proc))
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			err = fmt.Errorf("no answer to the handshake and the tool list within %v", l.Timeout)
		case errors.Is(ctx.Err(), context.Canceled):
			err = errors.New("canceled")
		}
		return nil, s.startError(err)
	}
	return s, nil
}

// handshake connects over t and lists the server's tools, every page.
func (s *mcpServer) handshake(ctx context.Context, t mcp.Transport) error {
	cs, err := mcp.NewClient(mcpClient, nil).Connect(ctx, t, nil)
	if err != nil {
		return err
	}
	s.session = cs
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			cs.Close()
			return fmt.Errorf("listing its tools: %w", err)
		}
		s.tools = append(s.tools, tool)
	}
	return nil
}

// call calls tool with input, a JSON object (nil sends {}). The output is
// the result's text content joined with newlines; a result with isError
// fails the call with that text, a protocol error with the server's
// message, and a server that died with `MCP server "x" exited: …`.
func (s *mcpServer) call(ctx context.Context, tool string, input json.RawMessage) (string, error) {
	if err := s.exited(0); err != nil {
		return "", err
	}
	var args any // nil: the SDK sends {}
	if in := bytes.TrimSpace(input); len(in) > 0 && string(in) != "null" {
		if in[0] != '{' {
			return "", fmt.Errorf("%s: the input of an MCP tool must be a JSON object", tool)
		}
		args = json.RawMessage(in)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if s.proc != nil {
		go func() {
			select {
			case <-s.proc.Done():
				cancel() // no answer will come
			case <-ctx.Done():
			}
		}()
	}
	res, err := s.session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		if xerr := s.exited(mcpExitWait); xerr != nil {
			return "", xerr
		}
		return "", fmt.Errorf("%s: MCP server %q: %v", tool, s.name, err)
	}
	out := resultText(res)
	if res.IsError {
		msg := out
		if strings.TrimSpace(msg) == "" {
			msg = "the tool reported an error without a message"
		}
		return out, fmt.Errorf("%s: %s", tool, msg)
	}
	return out, nil
}

// resultText joins a result's text content with newlines; other content
// (images, audio, resources) has no text and is left out. A result with
// no text content but structured content gives that, as compact JSON: the
// MCP specification asks a tool to put it in a text content too, but does
// not require it, and a step should not lose the result.
func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil && string(b) != "null" {
			return string(b)
		}
	}
	return strings.Join(parts, "\n")
}

// exited returns `MCP server "x" exited: …` when the server's process has
// exited or exits within wait, and nil otherwise.
func (s *mcpServer) exited(wait time.Duration) error {
	if s.proc == nil || !waitDone(s.proc.Done(), wait) {
		return nil
	}
	return fmt.Errorf("MCP server %q exited: %s%s", s.name, exitText(s.proc), s.stderr.said())
}

// close ends the server: its session (which closes its standard input),
// then, mcpCloseGrace later at most, its whole process tree.
func (s *mcpServer) close() error {
	closed := make(chan struct{})
	go func() {
		if s.session != nil {
			s.session.Close()
		}
		close(closed)
	}()
	if s.proc == nil {
		<-closed
		return nil
	}
	t := time.NewTimer(mcpCloseGrace)
	defer t.Stop()
	select {
	case <-s.proc.Done():
	case <-t.C:
	}
	if err := s.proc.Stop(); err != nil {
		return fmt.Errorf("MCP server %q: %w", s.name, err)
	}
	return nil
}

// startError is the error of a server that did not start.
func (s *mcpServer) startError(err error) error {
	return fmt.Errorf("MCP server %q did not start: %v%s", s.name, err, s.stderr.said())
}

// exitText says how p's main process ended.
func exitText(p *sandbox.Process) string {
	if err := p.Err(); err != nil {
		return err.Error()
	}
	return procexit.Status{}.String()
}

// waitDone reports whether ch is closed or closes within wait.
func waitDone(ch <-chan struct{}, wait time.Duration) bool {
	select {
	case <-ch:
		return true
	default:
	}
	if wait <= 0 {
		return false
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}

// closeAll closes the files that are not nil.
func closeAll(fs ...*os.File) {
	for _, f := range fs {
		if f != nil {
			f.Close()
		}
	}
}

// tailLimit is how much of a server's standard error tail keeps.
const tailLimit = 4 << 10

// tail keeps the end of a server's standard error, for the messages that
// say why it did not start or why it exited.
type tail struct {
	mu  sync.Mutex
	buf []byte
	eof chan struct{} // closed when drain has read everything; nil: no drain
}

// drain reads r to its end, keeping the last tailLimit bytes, and closes
// it. Call it once, from its own goroutine.
func (t *tail) drain(r io.ReadCloser) {
	defer close(t.eof)
	defer r.Close()
	b := make([]byte, 4096)
	for {
		n, err := r.Read(b)
		t.mu.Lock()
		t.buf = append(t.buf, b[:n]...)
		if len(t.buf) > tailLimit {
			t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailLimit:]...)
		}
		t.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// said returns "; its standard error ends: "…"" with the last three
// non-empty lines of what it kept, or "" when nothing was written.
// It waits a moment for the last of it: the process that wrote it has
// most often just ended.
func (t *tail) said() string {
	if t.eof != nil {
		waitDone(t.eof, 200*time.Millisecond)
	}
	t.mu.Lock()
	text := string(t.buf)
	t.mu.Unlock()
	var lines []string
	for l := range strings.SplitSeq(text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return ""
	}
	lines = lines[max(0, len(lines)-3):]
	msg := strings.Join(lines, "\n")
	if len(msg) > 400 {
		msg = "…" + msg[len(msg)-400:]
	}
	return fmt.Sprintf("; its standard error ends: %q", msg)
}
