package main

import (
	"fmt"
)

// dumpIRCommand is planc dump-ir (docs/cli.md).
var dumpIRCommand = &command{
	name:    "dump-ir",
	summary: "print the lowered program of a plan in its stable text form",
	usage: `usage: planc dump-ir [--capsule FILE] [--verbose] PLAN

Checks PLAN (a path, or - for standard input) as planc check does, lowers
it, and prints the program: one block per step with its index, id, kind
and target, dependencies and dependents by index, the condition's
instructions, the input template with its reference slots, on_error and
retries. docs/ir.md describes the format.

flags:
  --capsule FILE   the capsule manifest (default: .planc/capsule.json from
                   the current directory upward, else the embedded one);
                   its MCP servers are started to list their tools
  --verbose        say on standard error which capsule is used

exit status: 0 printed, 1 the plan is refused (diagnostics on standard
error, as planc check prints them), 2 usage error or unreadable file, 130
ended by SIGINT or SIGTERM while it could not finish
`,
	run: runDumpIR,
}

// runDumpIR implements planc dump-ir. Warnings go to standard error and do
// not stop the dump.
func runDumpIR(e *env, c *command, args []string) int {
	fs := newFlagSet(c)
	capsule := fs.String("capsule", "", "")
	verbose := fs.Bool("verbose", false, "")
	paths, status, ok := e.parseArgs(c, fs, args)
	if !ok {
		return status
	}
	if len(paths) != 1 {
		return e.usageError(c, "give exactly one plan")
	}
	prog, status := e.lowerChecked("dump-ir", *capsule, *verbose, paths[0])
	if prog == nil {
		return status
	}
	if _, err := fmt.Fprint(e.stdout, prog.String()); err != nil {
		return e.writeFailed(err)
	}
	return exitOK
}
