package main

import (
	"fmt"

	"github.com/planc/planc/diag"
	"github.com/planc/planc/host/capenv"
)

// trustCommand is planc trust: the user trusts a project capsule they
// wrote or read.
var trustCommand = &command{
	name:    "trust",
	summary: "trust a .planc/capsule.json, so that commands run under it",
	usage: `usage: planc trust [PATH]

Trusts the capsule manifest PATH (default: the .planc/capsule.json that
commands find from the current directory) as it is now: planc records its
SHA-256 in the user's data directory ($PLANC_TRUST_DIR, else
$XDG_DATA_HOME/planc/trusted, else ~/.local/share/planc/trusted), which no
step can write. A .planc/capsule.json that commands find is used only
once trusted, and again after every change only once trusted again, so
that a plan that writes one cannot plant a capsule for a later run.
planc init trusts the manifest it writes; a manifest given with
--capsule needs no trust. Read a manifest before you trust it.

exit status: 0 trusted, 2 usage error, or a manifest that cannot be read
or is refused
`,
	run: runTrust,
}

// runTrust implements planc trust.
func runTrust(e *env, c *command, args []string) int {
	pos, status, ok := e.parseArgs(c, newFlagSet(c), args)
	switch {
	case !ok:
		return status
	case len(pos) > 1:
		return e.usageError(c, "give one manifest, not %d", len(pos))
	}
	path := ""
	if len(pos) == 1 {
		path = pos[0]
	}
	path, sum, errs, err := capenv.Trust(e.stdin, path)
	if err != nil {
		fmt.Fprintf(e.stderr, "planc trust: %v\n", err)
		return exitUsage
	}
	if len(errs) > 0 {
		// A manifest that would be refused is not worth trusting: say why.
		diag.Sort(errs)
		_ = diag.WriteText(e.stderr, errs)
		return exitUsage
	}
	fmt.Fprintf(e.stdout, "trusted %s (sha256 %s)\n", path, sum)
	return exitOK
}
