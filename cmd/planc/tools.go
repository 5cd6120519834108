package main

import (
	"github.com/planc/planc/internal/cliflag"
)

// toolsCommand is planc tools (docs/cli.md).
var toolsCommand = &command{
	name:    "tools",
	summary: "list the capsule's tools: the built-in tools and its MCP servers' tools, with their inputs",
	usage: `usage: planc tools [--capsule FILE] [--format text|json] [--refresh-tools] [--verbose]

Lists the tool inventory of the capsule planc run would use (--capsule
FILE, else .planc/capsule.json from the current directory upward, else the
embedded default): the built-in tools it grants, then each MCP server's
tools, each with its description and its input as the input schema says
it, the schema check's tool-input rule holds a step's input to. The MCP
servers' lists come from the project's cache (.planc/cache), else the
servers are started, listed and ended, as planc check does.

flags:
  --capsule FILE    the capsule manifest
  --format FORMAT   text (the default) or json: {"capsule", "tools":
                    [{"name", "source", "server", "description",
                    "read_only", "input_schema"}]}, which serve's
                    list-tools returns too
  --refresh-tools   start the MCP servers even when their lists are kept
  --verbose         say on standard error which capsule is used

exit status: 0 listed, 2 usage error, refused capsule manifest, or an MCP
server that did not start
`,
	run: runTools,
}

// runTools implements planc tools.
func runTools(e *env, c *command, args []string) int {
	fs := newFlagSet(c)
	capsuleFlag := fs.String("capsule", "", "")
	format := cliflag.NewChoice("text", "text", "json")
	fs.Var(format, "format", "")
	refresh := fs.Bool("refresh-tools", false, "")
	verbose := fs.Bool("verbose", false, "")
	rest, status, ok := e.parseArgs(c, fs, args)
	if !ok {
		return status
	}
	if len(rest) > 0 {
		return e.usageError(c, "unexpected argument %q; planc tools takes no plan", rest[0])
	}
	capsule, ok := e.capsuleArg("tools", *capsuleFlag, *verbose)
	if !ok {
		return exitUsage
	}
	capsule.Refresh = *refresh
	ctx, stop := interruptible()
	defer stop()
	infos, err := capsule.ListTools(ctx)
	if err != nil {
		return e.mcpFailed("tools", err)
	}
	// The names and descriptions are the MCP servers' words: on a
	// terminal, their controls are shown, not acted on, as planc trace
	// shows a step's output.
	out, flush := e.shown(format.Value == "json")
	err = capsule.Env.Listing(infos).Write(out, format.Value)
	if ferr := flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return e.writeFailed(err)
	}
	return exitOK
}
