package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/check"
	"github.com/planc/planc/diag"
	"github.com/planc/planc/host/tools"
)

// checkCommand is planc check (docs/cli.md).
var checkCommand = &command{
	name:    "check",
	summary: "check plans: every refusal and warning, with positions and fixes",
	usage: `usage: planc check [--capsule FILE] [--format text|json|sarif] [--werror] PLAN...

Checks each PLAN (a path, or - for standard input) against every refusal
and every warning (docs/plans.md says what is refused; planc's decisions
are numbered in docs/semantics.md), and prints the diagnostics of all of
them sorted by file, line and column. Lines and columns are 1-based; a
column counts bytes. The README's table lists every code.

flags:
  --capsule FILE   the capsule manifest; turns on the capability rules
                   (tool inventory, tool inputs, shell allow list, spawn
                   allow list). Its MCP servers are started to list their
                   tools and input schemas, and ended; one that does not
                   start within 10s is an error
  --format FORMAT  text (the default: a line, the source line and a caret
                   under the span), json (one array) or sarif (SARIF 2.1.0)
  --werror         treat warnings as errors

exit status: 0 no errors, 1 at least one error (or warning, with
--werror), 2 usage error, unreadable file, refused capsule manifest, or an
MCP server of the manifest that did not start
`,
	run: runCheck,
}

// capsNote is the line on standard error when no --capsule is given.
const capsNote = "planc check: note: the capability rules (tool inventory, tool inputs, shell allow list, spawn allow list) were not run; pass --capsule FILE to run them"

// runCheck implements planc check.
func runCheck(e *env, c *command, args []string) int {
	fs := newFlagSet(c)
	capsule := fs.String("capsule", "", "")
	format := &choiceFlag{value: "text", choices: []string{"text", "json", "sarif"}}
	fs.Var(format, "format", "")
	werror := fs.Bool("werror", false, "")
	paths, status, ok := e.parseArgs(c, fs, args)
	if !ok {
		return status
	}
	if len(paths) == 0 {
		return e.usageError(c, "no plan given; name plan files, or - for standard input")
	}
	stdins := 0
	for _, p := range append([]string{*capsule}, paths...) {
		if p == stdinName {
			stdins++
		}
	}
	if stdins > 1 {
		return e.usageError(c, "standard input (-) given more than once; name it once")
	}

	var all []diag.Diagnostic
	var caps *check.Capabilities
	if *capsule != "" {
		m, ds, err := e.loadManifest(*capsule)
		if err != nil {
			fmt.Fprintf(e.stderr, "planc check: capsule manifest: %v\n", err)
			return exitUsage
		}
		if m == nil {
			// The manifest is refused: its diagnostics are the output.
			diag.Sort(ds)
			if err := e.writeDiags(format.value, ds, nil); err != nil {
				return e.writeFailed(err)
			}
			return exitUsage
		}
		caps, all = capsOf(m), ds
		if len(m.Tools.MCP) > 0 {
			inputs, err := listMCPTools(m, filepath.Dir(*capsule))
			if err != nil {
				for line := range strings.SplitSeq(err.Error(), "\n") {
					fmt.Fprintf(e.stderr, "planc check: capsule manifest: %s\n", line)
				}
				return exitUsage
			}
			caps = caps.WithTools(slices.Sorted(maps.Keys(inputs))...).WithSchemas(inputs)
		}
	}

	var failures []string
	for _, p := range paths {
		_, _, ds, err := e.loadPlan(p, caps)
		if err != nil {
			failures = append(failures, err.Error())
			fmt.Fprintf(e.stderr, "planc check: %v\n", err)
			continue
		}
		all = append(all, ds...)
	}
	diag.Sort(all)
	if err := e.writeDiags(format.value, all, failures); err != nil {
		return e.writeFailed(err)
	}
	if caps == nil {
		fmt.Fprintln(e.stderr, capsNote)
	}
	switch {
	case len(failures) > 0:
		return exitUsage
	case diag.Failing(all, *werror):
		return exitFail
	}
	return exitOK
}

// listMCPTools starts m's MCP servers, lists their tools and ends them
// (tools.ListMCPToolInputs), so that unknown-tool knows them and
// tool-input their input schemas; SIGINT or SIGTERM ends the servers too.
func listMCPTools(m *ast.Manifest, manifestDir string) (map[string]json.RawMessage, error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return tools.ListMCPToolInputs(ctx, m, "", manifestDir, tools.MCPStartTimeout)
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
