package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/planc/planc/host/capenv"
	"github.com/planc/planc/host/session"
	"github.com/planc/planc/internal/trust"
)

// initCommand is planc init: a starting project capsule.
var initCommand = &command{
	name:    "init",
	summary: "write a starting .planc/capsule.json, the capsule used here",
	usage: `usage: planc init

Writes .planc/capsule.json in the current directory: a capsule manifest
that grants what the embedded default capsule grants (the five built-in
tools, no shell binaries, nothing to spawn, plan submission), each section
explained in a "$comment" member. From then on check, dump-ir, graph, run
and serve use it here and in every directory below that has no
.planc/capsule.json of its own, unless --capsule names another; each
capability refusal names the field to add an entry to. docs/manifest.md
describes every field. An existing .planc/capsule.json is never
overwritten. planc init trusts the manifest it writes (planc trust): a
.planc/capsule.json that commands find is used only as it was trusted, so
run planc trust again after editing it.

exit status: 0 written, 1 .planc/capsule.json exists already, 2 usage
error or a file that could not be written
`,
	run: runInit,
}

// runInit implements planc init.
func runInit(e *env, c *command, args []string) int {
	pos, status, ok := e.parseArgs(c, newFlagSet(c), args)
	if !ok {
		return status
	}
	if len(pos) > 0 {
		return e.usageError(c, "unexpected argument %q; planc init writes .planc/capsule.json in the current directory, so cd there first", pos[0])
	}
	wd, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(e.stderr, "planc init: the current directory: %v\n", err)
		return exitUsage
	}
	// The capsule in force here before: a parent's, which the new one
	// hides from here down.
	before := capenv.Find(wd)
	starter := capenv.Starter(filepath.Base(wd))
	if err := capenv.WriteStarter(capenv.ProjectFile, starter); errors.Is(err, fs.ErrExist) {
		fmt.Fprintf(e.stderr, "planc init: %s exists already; edit it (docs/manifest.md), or remove it to start again\n", capenv.ProjectFile)
		return exitFail
	} else if err != nil {
		fmt.Fprintf(e.stderr, "planc init: %v\n", err)
		return exitUsage
	}
	// Written by the user's own hand: trusted as written (planc trust).
	if err := trust.RecordUser(capenv.ProjectFile, starter); err != nil {
		fmt.Fprintf(e.stderr, "planc init: wrote %s, but could not trust it: %v; run \"planc trust\" once that is fixed\n", capenv.ProjectFile, err)
		return exitUsage
	}
	fmt.Fprintf(e.stdout, "wrote %s: planc check, dump-ir, graph, run and serve use it here and below; grant shell binaries, tools and capsules in it, then run \"planc trust\" after each change\n", capenv.ProjectFile)
	fmt.Fprintf(e.stdout, "commit %s with your project; keep %s (what each run leaves) out of it: add %q to .gitignore\n", capenv.ProjectFile, sessionsDirSlash, sessionsDirSlash)
	if before != "" {
		fmt.Fprintf(e.stderr, "planc init: note: it takes the place of %s from here down\n", before)
	}
	return exitOK
}

// sessionsDirSlash is the sessions' directory as a .gitignore line names it.
var sessionsDirSlash = filepath.ToSlash(session.DefaultSessionsDir) + "/"
