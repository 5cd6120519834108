package main

import (
	"bytes"
	"fmt"

	"github.com/planc/planc/graph"
	"github.com/planc/planc/internal/cliflag"
)

// graphCommand is planc graph (docs/cli.md).
var graphCommand = &command{
	name:    "graph",
	summary: "draw a plan's dependency graph for Graphviz dot or Mermaid",
	usage: `usage: planc graph [--capsule FILE] [--format dot|mermaid] [--verbose] PLAN

Checks PLAN (a path, or - for standard input) as planc check does, lowers
it, and prints its graph: one node per step, labelled with its id, kind and
target, shaped and coloured by kind (tool: rounded box, blue; shell:
parallelogram, green; capsule: component box, amber). A conditional step
has a dashed border and its condition in the label (and, in dot, the
tooltip); on_error skip or continue gives a bold border and a label line.
Solid edges go from a dependency to its dependent. Dashed grey edges are
the tool lane: the tool steps in the order they would be dispatched if
every step ran and succeeded, one at a time (semantics S17).

  planc graph plan.json | dot -Tsvg -o plan.svg

flags:
  --capsule FILE   the capsule manifest (default: .planc/capsule.json from
                   the current directory upward, else the embedded one);
                   its MCP servers are started to list their tools
  --verbose        say on standard error which capsule is used
  --format FORMAT  dot (the default: Graphviz) or mermaid (a flowchart)

exit status: 0 printed, 1 the plan is refused (diagnostics on standard
error, as planc check prints them), 2 usage error or unreadable file, 130
ended by SIGINT or SIGTERM while it could not finish
`,
	run: runGraph,
}

// runGraph implements planc graph. Warnings go to standard error and do
// not stop the drawing.
func runGraph(e *env, c *command, args []string) int {
	fs := newFlagSet(c)
	capsule := fs.String("capsule", "", "")
	verbose := fs.Bool("verbose", false, "")
	format := cliflag.NewChoice("dot", "dot", "mermaid")
	fs.Var(format, "format", "")
	paths, status, ok := e.parseArgs(c, fs, args)
	if !ok {
		return status
	}
	if len(paths) != 1 {
		return e.usageError(c, "give exactly one plan")
	}
	if *capsule == stdinName && paths[0] == stdinName {
		return e.usageError(c, "standard input (-) given more than once; name it once")
	}
	prog, status := e.lowerChecked("graph", *capsule, *verbose, paths[0])
	if prog == nil {
		return status
	}
	var out bytes.Buffer
	if err := graph.Write(&out, prog, format.Value); err != nil {
		fmt.Fprintf(e.stderr, "planc graph: internal error: %v\n", err)
		return exitFail
	}
	return e.writeOut(out.Bytes())
}
