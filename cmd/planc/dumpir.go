package main

import (
	"fmt"

	"github.com/planc/planc/check"
	"github.com/planc/planc/ir"
)

// dumpIRCommand is planc dump-ir (cli.md).
var dumpIRCommand = &command{
	name:    "dump-ir",
	summary: "print the lowered program of a plan in its stable text form",
	usage: `usage: planc dump-ir [--capsule FILE] PLAN

Checks PLAN (a path, or - for standard input) as planc check does, lowers
it, and prints the program: one block per step with its index, id, kind
and target, dependencies and dependents by index, the condition's
instructions, the input template with its reference slots, on_error and
retries. docs/ir.md describes the format.

flags:
  --capsule FILE   the capsule manifest; turns on the capability rules

exit status: 0 printed, 1 the plan is refused (diagnostics on standard
error, as planc check prints them), 2 usage error or unreadable file
`,
	run: runDumpIR,
}

// runDumpIR implements planc dump-ir. Warnings go to standard error and do
// not stop the dump.
func runDumpIR(e *env, c *command, args []string) int {
	fs := newFlagSet(c)
	capsule := fs.String("capsule", "", "")
	paths, status, ok := e.parseArgs(c, fs, args)
	if !ok {
		return status
	}
	if len(paths) != 1 {
		return e.usageError(c, "give exactly one plan")
	}
	var caps *check.Capabilities
	var all []fileDiag
	if *capsule != "" {
		m, ds, err := e.loadManifest(*capsule)
		if err != nil {
			fmt.Fprintf(e.stderr, "planc dump-ir: capsule manifest: %v\n", err)
			return exitUsage
		}
		if m == nil {
			sortDiags(ds)
			_ = writeText(e.stderr, ds)
			return exitUsage
		}
		caps, all = check.CapabilitiesOf(m), ds
	}
	_, plan, ds, err := e.loadPlan(paths[0], caps)
	if err != nil {
		fmt.Fprintf(e.stderr, "planc dump-ir: %v\n", err)
		return exitUsage
	}
	all = append(all, ds...)
	sortDiags(all)
	if len(all) > 0 {
		if err := writeText(e.stderr, all); err != nil {
			return e.writeFailed(err)
		}
	}
	if plan == nil || failing(all, false) {
		return exitFail
	}
	prog, err := ir.Lower(plan)
	if err != nil {
		fmt.Fprintf(e.stderr, "planc dump-ir: internal error: %v\n", err)
		return exitFail
	}
	if _, err := fmt.Fprint(e.stdout, prog.String()); err != nil {
		return e.writeFailed(err)
	}
	return exitOK
}
