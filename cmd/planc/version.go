package main

import (
	"fmt"

	"github.com/planc/planc/host/capenv"
	"github.com/planc/planc/internal/buildinfo"
)

// plancVersion is planc's own version, bumped by hand at each release.
const plancVersion = "0.1.0-dev"

// versionCommand is planc version.
var versionCommand = &command{
	name:    "version",
	summary: "print planc's version, the Go version, and the capsule used here",
	usage: `usage: planc version

Prints two lines: planc's version, the module version the binary was
built from when the build recorded one (go install …@vX.Y.Z, or a VCS
stamp), and the Go version, operating system and architecture it was built
for; then the capsule the other commands use here without --capsule
(.planc/capsule.json in the current directory or the nearest parent that
has one, else the embedded default):

    planc 0.1.0-dev (module v0.1.0) go1.26.0 linux/amd64
    capsule: .planc/capsule.json (found from the current directory)
`,
	run: runVersion,
}

// runVersion implements planc version.
func runVersion(e *env, c *command, args []string) int {
	fs := newFlagSet(c)
	pos, status, ok := e.parseArgs(c, fs, args)
	if !ok {
		return status
	}
	if len(pos) > 0 {
		return e.usageError(c, "unexpected argument %q; planc version takes none", pos[0])
	}
	fmt.Fprintln(e.stdout, buildinfo.Line("planc", plancVersion, buildinfo.Module()))
	capsule, err := capenv.Which("")
	if err != nil {
		fmt.Fprintf(e.stderr, "planc version: %v\n", err)
		return exitUsage
	}
	fmt.Fprintln(e.stdout, "capsule: "+capsule.Describe())
	return exitOK
}
