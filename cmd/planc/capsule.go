package main

import (
	"os"

	"github.com/planc/planc/host"
	"github.com/planc/planc/host/capsule"
)

// capsuleCommand is planc __capsule, the hidden subcommand a sub-capsule
// runs as: planc run's capsule steps start it in the step's leaf cgroup
// (host/capsule's Launcher), and host.RunCapsule does the work. It is not
// for people.
var capsuleCommand = &command{
	name:    capsule.Command,
	summary: "internal: runs one sub-capsule of a capsule step",
	usage: `usage: planc __capsule --roost DIR --session DIR [--manifest-fd N] MANIFEST

Internal to planc run: one sub-capsule of a capsule step. It runs the
entrypoint of the capsule MANIFEST (from the roost DIR) with its session in
--session, the objective on standard input and the answer on standard
output. $PLANC_SPAWNED_BY and $PLANC_DELEGATION_ID name its parent; fd 3 is
its lifeline (EOF when its parent dies) and fd 4 its status pipe; with
--manifest-fd the manifest's bytes are read from fd N, and MANIFEST only
names it. A launcher puts the spawn's pins before those bytes (each file
the sub-capsule runs, as the parent checked it); the sub-capsule checks
them again at its start and runs only what they name. SIGTERM winds it down.
`,
	run: runCapsule,
}

// runCapsule implements planc __capsule.
func runCapsule(e *env, c *command, args []string) int {
	fs := newFlagSet(c)
	roost := fs.String("roost", "", "")
	session := fs.String("session", "", "")
	manifestFD := fs.Int("manifest-fd", 0, "")
	paths, status, ok := e.parseArgs(c, fs, args)
	switch {
	case !ok:
		return status
	case len(paths) != 1:
		return e.usageError(c, "give exactly one capsule manifest")
	case *session == "":
		return e.usageError(c, "--session is required")
	}
	// SIGTERM is the launcher's way to end this sub-capsule; no terminal
	// reaches it (it runs in a session of its own), but SIGINT does the
	// same for a person trying it by hand.
	ctx, stop := interruptible()
	defer stop()
	cfg := capsule.ChildConfig{
		Manifest: paths[0], SessionDir: *session, Roost: *roost,
		SpawnedBy: os.Getenv(capsule.EnvSpawnedBy), DelegationID: os.Getenv(capsule.EnvDelegationID),
		Stdin: e.stdin, Stdout: e.stdout, Stderr: e.stderr,
	}
	// A launcher passes fds 3 and 4 and sets the delegation id; by hand
	// there are none.
	if cfg.DelegationID != "" {
		if f := capsule.InheritedFile(3, "lifeline"); f != nil {
			cfg.Lifeline = f
		}
		if f := capsule.InheritedFile(4, "status"); f != nil {
			cfg.Status = f
		}
	}
	if *manifestFD > 2 {
		// The manifest's bytes as the launcher read them: the file at
		// MANIFEST names it, and is not read again.
		f := capsule.InheritedFile(*manifestFD, "manifest")
		if f == nil {
			return e.usageError(c, "--manifest-fd names no open file")
		}
		defer f.Close()
		cfg.ManifestSrc = f
	}
	return int(host.RunCapsule(ctx, cfg))
}
