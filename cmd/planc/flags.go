package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/planc/planc/ast"
)

// newFlagSet returns a flag set for c that prints nothing itself: parseArgs
// reports errors and help in planc's own words.
func newFlagSet(c *command) *flag.FlagSet {
	fs := flag.NewFlagSet("planc "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

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

// parseArgs parses args with fs and returns the positional arguments. When
// ok is false the caller returns status at once: -h printed the command's
// usage (status 0), or a usage error was reported (status 2).
func (e *env) parseArgs(c *command, fs *flag.FlagSet, args []string) (positional []string, status int, ok bool) {
	pos, err := parseInterspersed(fs, args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(e.stdout, c.usage)
		return nil, exitOK, false
	case err != nil:
		return nil, e.usageError(c, "%s", flagError(fs, err)), false
	}
	return pos, exitOK, true
}

// parseInterspersed parses flags before and after positional arguments, so
// that both `planc check --werror a.json` and `planc check a.json --werror`
// work. "--" ends the flags; "-" (standard input) is a positional argument.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// flagError rewords the flag package's errors, adding a did-you-mean for a
// misspelt flag.
func flagError(fs *flag.FlagSet, err error) string {
	const undefined = "flag provided but not defined: "
	msg := err.Error()
	name, found := strings.CutPrefix(msg, undefined)
	if !found {
		return msg
	}
	var known []string
	fs.VisitAll(func(f *flag.Flag) { known = append(known, f.Name) })
	name = strings.TrimLeft(name, "-")
	msg = fmt.Sprintf("unknown flag --%s", name)
	if s := ast.Suggest(name, known); s != "" {
		msg += fmt.Sprintf("; did you mean --%s?", s)
	}
	return msg
}

// usageError reports a usage error of command c, prints its usage on
// standard error, and returns exitUsage.
func (e *env) usageError(c *command, format string, args ...any) int {
	fmt.Fprintf(e.stderr, "planc %s: %s\n", c.name, fmt.Sprintf(format, args...))
	fmt.Fprint(e.stderr, c.usage)
	return exitUsage
}

// choiceFlag is a flag.Value that accepts one of a fixed set of words.
type choiceFlag struct {
	value   string
	choices []string
}

// String returns the current value.
func (f *choiceFlag) String() string { return f.value }

// Set accepts s when it is one of the choices.
func (f *choiceFlag) Set(s string) error {
	if !slices.Contains(f.choices, s) {
		msg := "want " + orList(f.choices)
		if sug := ast.Suggest(s, f.choices); sug != "" {
			msg += fmt.Sprintf("; did you mean %q?", sug)
		}
		return errors.New(msg)
	}
	f.value = s
	return nil
}

// orList formats words as "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}
