package main

import (
	"bytes"
	"fmt"

	"github.com/planc/planc/check"
	"github.com/planc/planc/graph"
	"github.com/planc/planc/ir"
)

// dryRun implements planc run --dry-run once the plan has been validated
// against the capsule, its MCP servers' tools included: it lowers plan,
// simulates the VM's schedule (graph.Simulate, semantics S17) and prints it
// with graph.WriteSchedule. Nothing runs and no session is written. The exit
// status is 0, or 1 when the plan cannot be lowered, which check's
// acceptance rules out.
func (e *env) dryRun(plan *check.Plan, maxParallel int) int {
	prog, err := ir.Lower(plan)
	if err != nil {
		fmt.Fprintf(e.stderr, "planc run: internal error: %v\n", err)
		return exitFail
	}
	s, err := graph.Simulate(prog, graph.Options{MaxParallel: maxParallel})
	if err != nil {
		fmt.Fprintf(e.stderr, "planc run: internal error: %v\n", err)
		return exitFail
	}
	var out bytes.Buffer
	graph.WriteSchedule(&out, prog, s, maxParallel)
	if _, err := e.stdout.Write(out.Bytes()); err != nil {
		return e.writeFailed(err)
	}
	return exitOK
}
