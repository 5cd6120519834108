// Package serve is `planc serve --mcp`: planc as a Model Context Protocol
// server, so that any agent speaking MCP can hand a whole plan to the
// runtime in one call (docs/serve.md).
//
// A Server offers three tools, built on github.com/modelcontextprotocol/go-sdk:
//
//   - submit-plan, whose arguments are the plan: it runs it exactly as
//     `planc run` does (host.Run) and returns the report (docs/plans.md, "The
//     report"), as structured content and as JSON text; a plan that did not
//     complete is a failed tool result whose first text is the summary (S21), a
//     refused plan a failed tool result listing the diagnostics. It is offered
//     only when the capsule manifest grants capabilities.plan.submit.
//   - resume-plan, offered beside submit-plan: it redrives a plan of the
//     connection's session that did not complete (S29), as `planc run
//     --resume` does, and answers as submit-plan does.
//   - check-plan, always offered: the diagnostics `planc check --capsule`
//     would print, as structured content and as text.
//
// One MCP connection (one ServeStream or Serve call) is one session: its
// plans share one session directory and are numbered 1, 2, … (tasks
// plan-1, plan-2, …). Cancelling a submit-plan request
// (notifications/cancelled) cancels its plan as docs/plans.md, "Cancel",
// says (S22, S30), as does the client going away or the context ending; both
// return only once every plan they started has wound down. ServeStream,
// planc's stdio, answers a line that is no JSON-RPC message with an error
// and goes on, answers every call it has read when its input ends, and
// writes no response to a call the client cancelled (stream.go). A client
// that sends a progress token gets one progress notification per settled
// step.
package serve

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/check"
	"github.com/planc/planc/host"
	"github.com/planc/planc/host/capenv"
	"github.com/planc/planc/host/session"
	"github.com/planc/planc/host/tools"
)

// Config is what every plan of a Server runs with: the fields of
// host.Config that `planc run` takes from its flags.
type Config struct {
	// Env is the capsule every plan is checked and runs in
	// (capenv.New): its manifest, whose path the fixes of capability
	// refusals name and the plans' steps may not change, and the
	// directory its relative paths start from. nil is capenv.Default.
	Env *capenv.Env
	// WorkDir is where steps run and tool paths start; "" is the current
	// directory.
	WorkDir string
	// SessionDir is the session directory every connection's plans run in
	// (made if need be, `planc run --session`); "" gives each connection a
	// new session under WorkDir/.planc/sessions, made when its first plan
	// runs.
	SessionDir string
	// Roost is where capsule steps find their capsules; "" is
	// WorkDir/roost.
	Roost string
	// MaxParallel caps the shell and capsule steps in flight of each plan;
	// 0 is no cap.
	MaxParallel int
	// ShellTimeout bounds every shell step; 0 takes the manifest's, or
	// host.DefaultShellTimeout.
	ShellTimeout time.Duration
	// Abort, once closed, ends every running plan at once, killing its
	// processes (a second SIGINT). Cancelling Serve's context is the
	// gentle cancel.
	Abort <-chan struct{}
	// Notice receives one-line notes for the operator (standard error in
	// `planc serve`); nil drops them. Nothing may go to standard output:
	// it is the MCP channel.
	Notice func(string)
	// Version is the version the server gives in the MCP handshake; ""
	// is "dev".
	Version string
}

// Server serves planc's tools to MCP clients. It is safe for concurrent
// use: each Serve call is a connection of its own.
type Server struct {
	cfg       Config
	env       *capenv.Env   // cfg.Env, or the default, with no MCP tools
	m         *ast.Manifest // env's manifest
	submitErr error         // why there is no submit-plan; nil when there is

	mu     sync.Mutex
	infos  []tools.ToolInfo // the inventory, once listed (inventory)
	listed bool
}

// New returns a Server for cfg.
func New(cfg Config) *Server {
	env := cfg.Env
	if env == nil {
		env = capenv.New(nil, capenv.WorkDir(cfg.WorkDir))
	}
	m := env.Manifest()
	return &Server{cfg: cfg, env: env, m: m, submitErr: host.AdmitFrom(m, env.Path())}
}

// SubmitRefusal says why the server offers no submit-plan tool: the
// manifest does not grant capabilities.plan.submit (host.Admit). It is nil
// when submit-plan is offered.
func (s *Server) SubmitRefusal() error { return s.submitErr }

// Serve serves one MCP connection over t, one session, until the client
// ends it or ctx is cancelled. Cancelling ctx cancels the running plans
// gently and closes the connection; either way Serve returns once every
// plan it started has wound down. The error is nil when the client ended
// the connection, ctx.Err() when ctx did. For standard input and output,
// ServeStream is the better transport.
func (s *Server) Serve(ctx context.Context, t mcp.Transport) error {
	err := s.serve(ctx, ctx, t)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// ServeStream serves one MCP connection, one session, over in and out as
// `planc serve --mcp` serves standard input and output: one JSON-RPC
// message per line. A line that is no message is answered with a JSON-RPC
// error and skipped, a line over MaxFrame bytes too. When in ends (or ctx
// is cancelled), ServeStream reads no further line and cancels the
// running plans, answers every call it has read (a cancelled plan's call
// with its cancelled report), and returns once they are answered and
// every plan has wound down. The response to a call the client cancelled
// (notifications/cancelled) is not written. The error is nil when in
// ended, ctx.Err() when ctx did, else in's read error. A read of in in
// progress when ServeStream returns is left to end with in (standard input
// ends with the process).
func (s *Server) ServeStream(ctx context.Context, in io.Reader, out io.Writer) error {
	plans, cancelPlans := context.WithCancel(ctx)
	defer cancelPlans()
	sc := newStreamConn(in, out, MaxFrame, s.cfg.Notice, cancelPlans)
	sc.stop = ctx
	stop := context.AfterFunc(ctx, func() { sc.endInput(io.EOF) })
	defer stop()
	err := s.serve(context.WithoutCancel(ctx), plans, &streamTransport{sc})
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// serve serves t until the connection ends or ctx is cancelled; plans
// ending cancels every running plan. It returns once they have wound
// down.
func (s *Server) serve(ctx, plans context.Context, t mcp.Transport) error {
	c := &conn{s: s, done: plans, sessionDir: s.cfg.SessionDir}
	version := s.cfg.Version
	if version == "" {
		version = "dev"
	}
	instr := instructions
	if s.submitErr != nil {
		instr = instructionsCheckOnly
	}
	// The capabilities are what planc does: tools, whose list never
	// changes on a connection (no listChanged), and no MCP logging (the
	// SDK would advertise both).
	srv := mcp.NewServer(&mcp.Implementation{Name: "planc", Title: "planc plan runtime", Version: version},
		&mcp.ServerOptions{Instructions: instr, Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}})
	// The descriptions name every tool a plan may call, MCP servers'
	// included; a listing that fails is said there, and check-plan and
	// list-tools say why when called.
	infos, listErr := s.inventory(ctx)
	srv.AddTool(checkTool(s.m, infos, listErr), c.checkPlan)
	srv.AddTool(listTool(), c.listTools)
	if s.submitErr == nil {
		srv.AddTool(submitTool(s.m, infos, listErr), c.submitPlan)
		srv.AddTool(resumeTool(), c.resumePlan)
	}
	err := srv.Run(ctx, t)
	c.plans.Wait()
	return err
}

// conn is one connection: its session and its running plans.
type conn struct {
	s *Server
	// done ends every running plan: Serve's context, or the end of
	// ServeStream's input.
	done  context.Context
	plans sync.WaitGroup

	mu         sync.Mutex
	sessionDir string // "" until the first plan runs (without --session)
	lastPlan   int    // the number of the last plan the connection ran, 0 for none
	// unmake removes the session this connection made, while no plan of
	// it has begun (began) and none is between session and settle
	// (pending): a refused plan creates nothing.
	unmake  func()
	began   bool
	pending int
}

// ranPlan records that the connection ran (or resumed) plan n: resume-plan
// takes it by default.
func (c *conn) ranPlan(n int) {
	c.mu.Lock()
	c.lastPlan = n
	c.mu.Unlock()
}

// session returns the connection's session directory, making the session
// for its first plan; every call is followed by one settle.
func (c *conn) session() (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sessionDir == "" {
		work, err := workDir(c.s.cfg.WorkDir)
		if err != nil {
			return "", err
		}
		sess, unmake, err := host.CreateSession(work, session.NewInfo(c.s.m.Name, c.s.m.Version, "", ""))
		if err != nil {
			return "", err
		}
		c.sessionDir, c.unmake, c.began = sess.Dir, unmake, false
	}
	c.pending++
	return c.sessionDir, nil
}

// settle records how a plan that session gave a directory ended: refused
// (host.Run made nothing for it), or begun. When the last plan of a
// session this connection made is refused and none began, the session is
// removed, and the next plan makes a new one.
func (c *conn) settle(refused bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pending--
	if !refused {
		c.began = true
	}
	if !c.began && c.pending == 0 && c.unmake != nil {
		c.unmake()
		c.sessionDir, c.unmake = "", nil
	}
}

// planContext is the context a plan runs under: cancelled by the
// request's cancellation (or the client going away) and by Serve's
// context.
func (c *conn) planContext(req context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(req)
	stop := context.AfterFunc(c.done, cancel)
	return ctx, func() { stop(); cancel() }
}

// hostConfig is host.Config for one plan of this connection.
func (c *conn) hostConfig(plan *check.Plan, sessionDir string) host.Config {
	cfg := c.s.cfg
	return host.Config{
		Plan:         plan,
		Env:          c.s.env,
		WorkDir:      cfg.WorkDir,
		SessionDir:   sessionDir,
		MaxParallel:  cfg.MaxParallel,
		ShellTimeout: cfg.ShellTimeout,
		Abort:        cfg.Abort,
		Notice:       cfg.Notice,
		Roost:        cfg.Roost,
	}
}

// env is the environment check-plan and submit-plan check with, as
// `planc check` does: the server's, with the tools of the manifest's MCP
// servers and their input schemas (inventory). Both tools check a plan
// in the same environment before anything runs, so they find the same
// problems.
func (s *Server) withMCP(ctx context.Context) (*capenv.Env, error) {
	if !s.env.HasMCP() {
		return s.env, nil
	}
	infos, err := s.inventory(ctx)
	if err != nil {
		return nil, err
	}
	return s.env.WithMCP(tools.MCPInputs(infos)), nil
}

// inventory is the capsule's tools (tools.ListTools): the built-in tools
// it grants and its MCP servers' tools, which the servers are started
// once to list (in the working directory, outside any scope) and kept
// for every connection. A listing that failed is tried again next time.
func (s *Server) inventory(ctx context.Context) ([]tools.ToolInfo, error) {
	if len(s.m.Tools.MCP) == 0 {
		return tools.BuiltinInfos(ast.Names(s.m.Tools.Builtin)), nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.listed {
		work, err := workDir(s.cfg.WorkDir)
		if err != nil {
			return nil, err
		}
		infos, err := s.env.ListTools(ctx, tools.ListOptions{Dir: work, Timeout: tools.MCPStartTimeout})
		if err != nil {
			return nil, err
		}
		s.infos, s.listed = infos, true
	}
	return s.infos, nil
}

// workDir returns dir made absolute, "" being the current directory.
func workDir(dir string) (string, error) {
	if dir == "" {
		return os.Getwd()
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("working directory: %w", err)
	}
	return abs, nil
}

// errorResult is a failed tool result with one text.
func errorResult(format string, args ...any) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(format, args...)}}}
}
