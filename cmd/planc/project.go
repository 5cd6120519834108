package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/planc/planc/check"
	"github.com/planc/planc/diag"
	"github.com/planc/planc/host/capenv"
	"github.com/planc/planc/ir"
)

// stdinName is how a PLAN argument names standard input.
const stdinName = capenv.StdinName

// capsuleArg loads the capsule for flag (capenv.Load) for command cmd,
// printing what went wrong as check prints it (an unreadable manifest, or
// a refused one's diagnostics) and, with verbose, which capsule is used.
// ok is false when the command must exit 2.
func (e *env) capsuleArg(cmd, flag string, verbose bool) (*capenv.Project, bool) {
	c, err := capenv.Load(flag, e.stdin)
	if err != nil {
		fmt.Fprintf(e.stderr, "planc %s: capsule manifest: %v\n", cmd, err)
		return nil, false
	}
	if c.Env == nil {
		diag.Sort(c.Diags)
		_ = diag.WriteText(e.stderr, c.Diags)
		return nil, false
	}
	e.sayCapsule(cmd, c, verbose)
	return c, true
}

// sayCapsule prints, with verbose, the line on standard error that says
// which capsule cmd uses.
func (e *env) sayCapsule(cmd string, c *capenv.Project, verbose bool) {
	if verbose {
		fmt.Fprintf(e.stderr, "planc %s: capsule: %s\n", cmd, c.Describe())
	}
}

// mcpFailed prints why the manifest's MCP servers could not be listed,
// one line per problem, and returns exit status 2.
func (e *env) mcpFailed(cmd string, err error) int {
	for line := range strings.SplitSeq(err.Error(), "\n") {
		fmt.Fprintf(e.stderr, "planc %s: capsule manifest: %s\n", cmd, line)
	}
	return exitUsage
}

// interruptible is a context SIGINT or SIGTERM ends: the MCP servers
// started to list their tools end with it.
func interruptible() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// signalWait is how long a command given SIGINT or SIGTERM waits for
// what it was doing to end with it before it exits (interruptibly).
const signalWait = 2 * time.Second

// exitInterrupted is the exit status of a command a signal ended before
// it could finish: 128 + SIGINT's number, as a shell reports a process
// SIGINT ended.
const exitInterrupted = 130

// interruptibly runs f and reports true once it has returned. Reading a
// plan can block for good (a FIFO no one writes, a pipe that never ends),
// and a read does not watch ctx (interruptible's): when ctx's signal comes
// and f has not returned signalWait later, cmd says so on standard error
// and interruptibly returns false at once, f left to end with the process
// (the caller reads nothing f writes then).
func interruptibly(ctx context.Context, e *env, cmd string, f func()) bool {
	done := make(chan struct{})
	go func() { f(); close(done) }()
	select {
	case <-done:
		return true
	case <-ctx.Done():
	}
	select {
	case <-done: // it ended with the signal (an MCP server's listing)
		return true
	case <-time.After(signalWait):
		fmt.Fprintf(e.stderr, "planc %s: interrupted\n", cmd)
		return false
	}
}

// envFor is c.EnvFor with the MCP servers ended by SIGINT or SIGTERM.
func envFor(c *capenv.Project, srcs ...[]byte) (*capenv.Env, error) {
	ctx, stop := interruptible()
	defer stop()
	return c.EnvFor(ctx, srcs...)
}

// lowerChecked is the front half of the commands that show a plan without
// running it (dump-ir, graph): load the capsule (--capsule flag, else the
// one found, else the embedded default) with its MCP servers' tools, read
// the plan and check it with the capsule's capabilities, print every
// diagnostic on standard error as check prints them, and lower the plan.
// It returns the program, or nil and the exit status to return: 2 for an
// unreadable file, a refused manifest or an MCP server that did not start,
// 1 for a refused plan.
func (e *env) lowerChecked(cmd, flag string, verbose bool, path string) (*ir.Program, int) {
	c, ok := e.capsuleArg(cmd, flag, verbose)
	if !ok {
		return nil, exitUsage
	}
	ctx, stop := interruptible()
	defer stop()
	var plan *check.Plan
	var all []diag.Diagnostic
	var err error
	if !interruptibly(ctx, e, cmd, func() { plan, all, err = c.CheckFile(ctx, e.stdin, path) }) {
		return nil, exitInterrupted
	}
	if me, ok := errors.AsType[*capenv.MCPError](err); ok {
		return nil, e.mcpFailed(cmd, me.Err)
	} else if err != nil {
		fmt.Fprintf(e.stderr, "planc %s: %v\n", cmd, err)
		return nil, exitUsage
	}
	diag.Sort(all)
	if len(all) > 0 {
		if err := diag.WriteText(e.stderr, all); err != nil {
			return nil, e.writeFailed(err)
		}
	}
	if plan == nil {
		return nil, exitFail
	}
	prog, err := ir.Lower(plan)
	if err != nil {
		fmt.Fprintf(e.stderr, "planc %s: internal error: %v\n", cmd, err)
		return nil, exitFail
	}
	return prog, exitOK
}
