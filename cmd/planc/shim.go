package main

import "github.com/planc/planc/host/shell"

// shimCommand is planc __shim, the hidden re-exec shim of planc run's shell
// steps: host/shell starts `planc __shim …` inside a step's leaf cgroup to
// make the step's protected paths read-only and then exec the step's
// program (host/shell's ShimMain documents how). It is not for people.
var shimCommand = &command{
	name:    shell.ShimCommand,
	summary: "internal: runs one shell step of planc run under its protection",
	usage: `usage: planc __shim -lock MODE [-ro PATH]... -- FILE ARGV...

Internal to planc run: the re-exec shim of a shell step. It makes each
PATH read-only for the step, locks that in, and executes FILE with ARGV.
`,
	run: func(e *env, c *command, args []string) int { return shell.ShimMain(args) },
}
