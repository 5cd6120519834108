package main

import (
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/planc/planc/internal/cliflag"
)

// newFlagSet returns a flag set for c that prints nothing itself: parseArgs
// reports errors and help in planc's own words.
func newFlagSet(c *command) *flag.FlagSet { return cliflag.NewSet("planc " + c.name) }

// planFlags are the flags planc run and planc serve share for the plans
// they run.
type planFlags struct {
	maxParallel  *int
	shellTimeout *time.Duration
}

// addPlanFlags defines --max-parallel and --shell-timeout on fs.
func addPlanFlags(fs *flag.FlagSet) planFlags {
	return planFlags{maxParallel: fs.Int("max-parallel", 0, ""), shellTimeout: fs.Duration("shell-timeout", 0, "")}
}

// problem returns the usage error of a bad value, or "".
func (f planFlags) problem() string {
	switch {
	case *f.maxParallel < 0:
		return "--max-parallel must be 0 (no cap) or more"
	case *f.shellTimeout < 0:
		return "--shell-timeout must be a positive duration such as 90s"
	}
	return ""
}

// parseArgs parses args with fs (cliflag.Parse) and returns the positional
// arguments. When ok is false the caller returns status at once: -h
// printed the command's usage (status 0), or a usage error was reported
// (status 2).
func (e *env) parseArgs(c *command, fs *flag.FlagSet, args []string) (positional []string, status int, ok bool) {
	pos, err := cliflag.Parse(fs, args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(e.stdout, c.usage)
		return nil, exitOK, false
	case err != nil:
		return nil, e.usageError(c, "%s", cliflag.Explain(fs, err)), false
	}
	return pos, exitOK, true
}

// usageError reports a usage error of command c in one line, and a second
// line saying where its usage is, and returns exitUsage.
func (e *env) usageError(c *command, format string, args ...any) int {
	fmt.Fprintf(e.stderr, "planc %s: %s\n", c.name, fmt.Sprintf(format, args...))
	fmt.Fprintf(e.stderr, "run 'planc help %s' for its usage\n", c.name)
	return exitUsage
}
