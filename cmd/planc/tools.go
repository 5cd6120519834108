package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/host/capenv"
	"github.com/planc/planc/host/session"
	"github.com/planc/planc/host/tools"
	"github.com/planc/planc/parser"
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
	format := &choiceFlag{value: "text", choices: []string{"text", "json"}}
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
	capsule.refresh = *refresh
	infos, err := capsule.listTools()
	if err != nil {
		return e.mcpFailed("tools", err)
	}
	listing := capsule.env.Listing(infos)
	if format.value == "json" {
		b, err := json.MarshalIndent(listing, "", "  ")
		if err == nil {
			_, err = e.stdout.Write(append(b, '\n'))
		}
		if err != nil {
			return e.writeFailed(err)
		}
		return exitOK
	}
	if _, err := fmt.Fprint(e.stdout, tools.FormatText(listing.Capsule, infos)); err != nil {
		return e.writeFailed(err)
	}
	return exitOK
}

// cacheDir is where the project keeps its MCP servers' tool lists: the
// working directory's .planc/cache, which every run here protects from
// its steps as it protects the rest of .planc.
func cacheDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	return filepath.Join(wd, session.RuntimeDir, "cache")
}

// listTools lists the capsule's inventory (capenv.Env.ListTools): the MCP
// servers' tools from the project's cache, or by starting them in the
// current directory, outside any cgroup scope. SIGINT or SIGTERM ends the
// servers.
func (c *capsuleInfo) listTools() ([]tools.ToolInfo, error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return c.env.ListTools(ctx, tools.ListOptions{Timeout: tools.MCPStartTimeout, CacheDir: cacheDir(), Refresh: c.refresh})
}

// needsMCP reports whether any of the plan texts srcs names a tool that
// is not a built-in tool the capsule grants: only then must the MCP
// servers' tools be known to check it. A plan that does not parse names
// none (its syntax errors are its diagnostics).
func (c *capsuleInfo) needsMCP(srcs ...[]byte) bool {
	m := c.env.Manifest()
	if len(m.Tools.MCP) == 0 {
		return false
	}
	granted := map[string]bool{}
	for _, b := range ast.Names(m.Tools.Builtin) {
		granted[b] = true
	}
	for _, src := range srcs {
		p, _ := parser.ParsePlan(src, parser.DefaultLimits())
		if p == nil {
			continue
		}
		for _, s := range p.Steps {
			if s.Kind == ast.KindTool && !granted[s.Target] {
				return true
			}
		}
	}
	return false
}

// envFor is the capsule's environment with the tools of its MCP servers
// and their input schemas, which only the servers know, when a plan of
// srcs needs them (needsMCP) or --refresh-tools asks for them: listTools
// lists them, from the project's cache or by starting the servers.
// Otherwise, and without MCP servers, it is the environment as it is. The
// error has one line per problem.
func (c *capsuleInfo) envFor(srcs ...[]byte) (*capenv.Env, error) {
	if !c.env.HasMCP() || !c.refresh && !c.needsMCP(srcs...) {
		return c.env, nil
	}
	infos, err := c.listTools()
	if err != nil {
		return nil, err
	}
	return c.env.WithMCP(tools.MCPInputs(infos)), nil
}
