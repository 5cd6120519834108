package main

import (
	"fmt"

	"github.com/planc/planc/diag"
	"github.com/planc/planc/host"
	"github.com/planc/planc/host/capenv"
	"github.com/planc/planc/internal/cliflag"
)

// checkCommand is planc check (docs/cli.md).
var checkCommand = &command{
	name:    "check",
	summary: "check plans: every refusal and warning, with positions and fixes",
	usage: `usage: planc check [--capsule FILE] [--format text|json|sarif] [--werror] [--refresh-tools] [--verbose] PLAN...

Checks each PLAN (a path, - for standard input, or a directory: every
plan file directly in it, that is every *.json file but capsule.json, the
manifest's name) against every refusal
and every warning (docs/plans.md says what is refused; planc's decisions
are numbered in docs/semantics.md), and prints the diagnostics of all of
them sorted by file, line and column. Lines and columns are 1-based; a
column counts bytes. The README's table lists every code.

The capability rules (tool inventory, tool inputs, shell allow list, spawn
allow list) run against the capsule planc run would use: --capsule FILE,
else .planc/capsule.json in the current directory or the nearest parent
that has one, else the embedded default capsule (planc init makes
.planc/capsule.json). So check reports an error exactly when planc run
would refuse the plan. The tools and input schemas of the capsule's MCP
servers are needed only for a plan that names a tool other than the
built-in tools the capsule grants: they come from the project's cache
(.planc/cache), else the servers are started to list them, and ended; one
that does not start within 10s is an error.

flags:
  --capsule FILE   the capsule manifest (default: .planc/capsule.json from
                   the current directory upward, else the embedded one)
  --format FORMAT  text (the default: a line, the source line and a caret
                   under the span), json (one array) or sarif (SARIF 2.1.0)
  --werror         treat warnings as errors
  --refresh-tools  list the MCP servers' tools afresh, not from the cache
  --verbose        say on standard error which capsule is used

exit status: 0 no errors, 1 at least one error (or warning, with
--werror), 2 usage error, unreadable file, refused capsule manifest, or an
MCP server of the manifest that did not start, 130 ended by SIGINT or
SIGTERM while it could not finish (a plan read from a FIFO no one writes)
`,
	run: runCheck,
}

// runCheck implements planc check.
func runCheck(e *env, c *command, args []string) int {
	fs := newFlagSet(c)
	capsuleFlag := fs.String("capsule", "", "")
	format := cliflag.NewChoice("text", "text", "json", "sarif")
	fs.Var(format, "format", "")
	werror := fs.Bool("werror", false, "")
	verbose := fs.Bool("verbose", false, "")
	refresh := fs.Bool("refresh-tools", false, "")
	paths, status, ok := e.parseArgs(c, fs, args)
	if !ok {
		return status
	}
	if len(paths) == 0 {
		return e.usageError(c, "no plan given; name plan files, or - for standard input")
	}
	stdins := 0
	for _, p := range append([]string{*capsuleFlag}, paths...) {
		if p == stdinName {
			stdins++
		}
	}
	if stdins > 1 {
		return e.usageError(c, "standard input (-) given more than once; name it once")
	}

	capsule, err := capenv.Load(*capsuleFlag, e.stdin)
	if err != nil {
		fmt.Fprintf(e.stderr, "planc check: capsule manifest: %v\n", err)
		return exitUsage
	}
	if capsule.Env == nil {
		// The manifest is refused: its diagnostics are the output.
		diag.Sort(capsule.Diags)
		if err := e.writeDiags(format.Value, capsule.Diags, nil); err != nil {
			return e.writeFailed(err)
		}
		return exitUsage
	}
	e.sayCapsule("check", capsule, *verbose)
	// run refuses such a capsule before it reads a plan; check says so
	// too, so that it reports an error exactly when run would refuse.
	if err := host.AdmitFrom(capsule.Env.Manifest(), capsule.Env.Name()); err != nil {
		fmt.Fprintf(e.stderr, "planc check: %v\n", err)
		return exitUsage
	}
	capsule.Refresh = *refresh
	ctx, stop := interruptible()
	defer stop()
	var all []diag.Diagnostic
	var failures []string
	if !interruptibly(ctx, e, "check", func() { all, failures, err = capsule.CheckPaths(ctx, e.stdin, paths) }) {
		return exitInterrupted
	}
	for _, f := range failures {
		fmt.Fprintf(e.stderr, "planc check: %s\n", f)
	}
	if err != nil {
		return e.mcpFailed("check", err)
	}
	diag.Sort(all)
	if err := e.writeDiags(format.Value, all, failures); err != nil {
		return e.writeFailed(err)
	}
	switch {
	case len(failures) > 0:
		return exitUsage
	case diag.Failing(all, *werror):
		return exitFail
	}
	return exitOK
}

// writeDiags prints ds on standard output in format (text, json or sarif).
// failures are the inputs that could not be read, for SARIF's invocation.
func (e *env) writeDiags(format string, ds []diag.Diagnostic, failures []string) error {
	switch format {
	case "json":
		return diag.WriteJSON(e.stdout, ds)
	case "sarif":
		return diag.WriteSARIF(e.stdout, ds, plancVersion, failures)
	}
	return diag.WriteText(e.stdout, ds)
}

// writeFailed reports that standard output could not be written.
func (e *env) writeFailed(err error) int {
	fmt.Fprintf(e.stderr, "planc: write standard output: %v\n", err)
	return exitUsage
}
