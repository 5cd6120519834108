package main

import "github.com/planc/planc/host/sandbox"

// shimCommand is planc __shim, the hidden re-exec shim of planc run's shell
// steps: host/sandbox starts `planc __shim …` in a leaf cgroup of the plan's
// scope, where it makes the steps' protected paths read-only and then
// serves as the spawner of the plan's protected steps (-spawn) or execs
// one step (host/sandbox's ShimMain documents how). It is not for people.
var shimCommand = &command{
	name:    sandbox.ShimCommand,
	summary: "internal: runs one shell step of planc run under its protection",
	usage: `usage: planc __shim -lock MODE [-ro PATH]... [-report] (-spawn | -- FILE ARGV...)

Internal to planc run: the re-exec shim of its shell steps. It makes each
PATH read-only, locks that in, and then either starts the steps planc run
sends on fd 3 (-spawn) or executes FILE with ARGV.
`,
	run: func(e *env, c *command, args []string) int { return sandbox.ShimMain(args) },
}
