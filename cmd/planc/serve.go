package main

import (
	"context"
	"fmt"

	"github.com/planc/planc/internal/interrupt"
	"github.com/planc/planc/serve"
)

// serveCommand is planc serve --mcp (docs/serve.md): the submit-plan,
// check-plan and resume-plan tools for any MCP client, over standard input
// and output.
var serveCommand = &command{
	name:    "serve",
	summary: "serve submit-plan, check-plan and resume-plan to an MCP client over stdio",
	usage: `usage: planc serve --mcp [--capsule FILE] [--roost DIR] [--session DIR] [--max-parallel N] [--shell-timeout D] [--verbose]

Serves the Model Context Protocol on standard input and output, for an MCP
client (an agent) that started planc as its server. It offers three
tools: submit-plan, whose arguments are a plan, runs it as planc run does
and returns its report; check-plan, whose arguments are a plan too,
returns the diagnostics planc check would print; resume-plan ({"plan": N})
redrives a plan of the connection that did not complete, as planc run
--resume does. The connection is one session: its plans are numbered 1,
2, ... Standard output carries MCP alone; notes go to standard error.

Without capabilities.plan.submit in the manifest there is no submit-plan
and no resume-plan tool (standard error says so), only check-plan and list-tools. Cancelling a submit-plan
call cancels its plan, as SIGINT does to planc run, and the call gets no
response. The end of standard input (the client going away), SIGINT or
SIGTERM cancel every running plan; every call already read is still
answered (a cancelled plan's with its cancelled report), and planc exits
once the plans have wound down; a second SIGINT ends them at once. A line
that is not a JSON-RPC message gets a JSON-RPC error and is skipped.

flags:
  --mcp            speak MCP over stdio (required: the only protocol)
  --capsule FILE   the capsule manifest (default: .planc/capsule.json in the
                   current directory or the nearest parent that has one,
                   else the embedded one: the built-in tools, no shell
                   binaries, nothing to spawn)
  --roost DIR      the roost capsule steps spawn sub-capsules from
                   (default ./roost)
  --session DIR    run every plan in the session directory DIR (default: a
                   new session under .planc/sessions/, made when the first
                   plan runs)
  --max-parallel N run at most N shell and capsule steps of a plan at once
                   (default 0: no cap), as planc run does
  --shell-timeout D
                   the bound of every shell step, e.g. 90s (default: the
                   manifest's capabilities.shell.timeout, else 10m)
  --verbose        say on standard error which capsule is used

exit status: 0 the connection ended (the client closed it, or a signal),
1 the connection failed, 2 usage error or a refused capsule manifest
`,
	run: runServe,
}

// runServe implements planc serve.
func runServe(e *env, c *command, args []string) int {
	fs := newFlagSet(c)
	useMCP := fs.Bool("mcp", false, "")
	capsuleFlag := fs.String("capsule", "", "")
	verbose := fs.Bool("verbose", false, "")
	roost := fs.String("roost", "", "")
	session := fs.String("session", "", "")
	pf := addPlanFlags(fs)
	rest, status, ok := e.parseArgs(c, fs, args)
	switch {
	case !ok:
		return status
	case len(rest) > 0:
		return e.usageError(c, "unexpected argument %q; plans come as submit-plan calls over MCP", rest[0])
	case !*useMCP:
		return e.usageError(c, "give --mcp: planc serves the Model Context Protocol only")
	case *capsuleFlag == stdinName:
		return e.usageError(c, "--capsule cannot be standard input (-): standard input is the MCP channel")
	case pf.problem() != "":
		return e.usageError(c, "%s", pf.problem())
	}
	capsule, ok := e.capsuleArg("serve", *capsuleFlag, *verbose)
	if !ok {
		return exitUsage
	}
	// A project found from a subdirectory is served at its root (S34);
	// the manifest's paths were found from here, not from there.
	workDir := capsule.WorkDir("")
	env := capsule.Env
	if workDir != "" {
		env = capsule.RunEnv(env.Manifest(), true)
	}
	// A client that goes away closes the pipe planc answers on: a write
	// there fails (EPIPE), and ServeStream winds the plans down, rather
	// than SIGPIPE killing planc with their traces unfinished.
	interrupt.SurviveBrokenPipe()
	abort := make(chan struct{})
	srv := serve.New(serve.Config{
		Env:          env,
		WorkDir:      workDir,
		SessionDir:   *session,
		Roost:        *roost,
		MaxParallel:  *pf.maxParallel,
		ShellTimeout: *pf.shellTimeout,
		Abort:        abort,
		Notice:       func(s string) { fmt.Fprintf(e.stderr, "planc serve: %s\n", s) },
		Version:      plancVersion,
	})
	if err := srv.SubmitRefusal(); err != nil {
		fmt.Fprintf(e.stderr, "planc serve: no submit-plan tool, only check-plan and list-tools: %v\n", err)
	}
	// SIGINT or SIGTERM ends the connection as the end of standard input
	// does (running plans are cancelled, S22, and every call read is
	// answered), a second kills the plans' processes at once; if they have
	// not wound down abortGrace later, planc exits 3, as planc run does.
	err := withSignals(e, abort, "planc serve", "the plans", nil, func(ctx context.Context) error {
		if err := srv.ServeStream(ctx, e.stdin, e.stdout); ctx.Err() == nil {
			return err
		}
		return nil // a signal ended it, as asked
	})
	if err != nil {
		fmt.Fprintf(e.stderr, "planc serve: %v\n", err)
		return exitFail
	}
	return exitOK
}
