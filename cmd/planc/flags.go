package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
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

// typedError is an error of fs.Parse with the arguments it had consumed
// when it failed: the failing flag is among them, as the user typed it.
type typedError struct {
	err   error
	typed []string
}

func (e *typedError) Error() string { return e.err.Error() }
func (e *typedError) Unwrap() error { return e.err }

// parseInterspersed parses flags before and after positional arguments, so
// that both `planc check --werror a.json` and `planc check a.json --werror`
// work. "--" ends the flags; "-" (standard input) is a positional argument.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, &typedError{err: err, typed: args[:len(args)-len(fs.Args())]}
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

// The flag package's error texts that flagError rewords.
const (
	errUndefined = "flag provided but not defined: -"
	errNoValue   = "flag needs an argument: -"
	errValue     = "invalid value "
	errBool      = "invalid boolean value "
	errSyntax    = "bad flag syntax: "
)

// flagError rewords the flag package's errors in planc's words: the flag
// as the user spelt it (--format, not -format), a did-you-mean for a
// misspelt flag, and for a bad value what a good one looks like.
func flagError(fs *flag.FlagSet, err error) string {
	var typed []string
	if te, ok := errors.AsType[*typedError](err); ok {
		typed, err = te.typed, te.err
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, errUndefined); ok {
		var known []string
		fs.VisitAll(func(f *flag.Flag) { known = append(known, f.Name) })
		msg = "unknown flag " + spelling(typed, name)
		if s := ast.Suggest(strings.TrimLeft(name, "-"), known); s != "" {
			msg += fmt.Sprintf("; did you mean --%s?", s)
		}
		return msg
	}
	if name, ok := strings.CutPrefix(msg, errNoValue); ok {
		msg = spelling(typed, name) + " needs a value"
		if c, ok := fs.Lookup(name).Value.(*choiceFlag); ok {
			msg += ": " + orList(c.choices)
		}
		return msg
	}
	if rest, ok := strings.CutPrefix(msg, errBool); ok {
		if value, name, reason, ok := splitValueError(rest, "for -"); ok {
			spelt, f := spelling(typed, name), fs.Lookup(name)
			if g, ok := f.Value.(flag.Getter); ok {
				if _, ok := g.Get().(bool); ok {
					return fmt.Sprintf("%s takes no value, but has %q; give %s alone", spelt, value, spelt)
				}
			}
			return valueError(f, spelt, value, reason)
		}
	}
	if rest, ok := strings.CutPrefix(msg, errValue); ok {
		if value, name, reason, ok := splitValueError(rest, "for flag -"); ok {
			return valueError(fs.Lookup(name), spelling(typed, name), value, reason)
		}
	}
	if arg, ok := strings.CutPrefix(msg, errSyntax); ok {
		return fmt.Sprintf("%q is not a flag; flags are --NAME or --NAME=VALUE (after --, arguments are not flags)", arg)
	}
	return msg
}

// splitValueError splits the rest of the flag package's "invalid value
// %q for flag -%s: %v" after "invalid value ".
func splitValueError(rest, sep string) (value, name, reason string, ok bool) {
	q, err := strconv.QuotedPrefix(rest)
	if err != nil {
		return "", "", "", false
	}
	value, _ = strconv.Unquote(q)
	rest, ok = strings.CutPrefix(rest[len(q):], " "+sep)
	if !ok {
		return "", "", "", false
	}
	name, reason, ok = strings.Cut(rest, ": ")
	return value, name, reason, ok
}

// valueError explains a value flag f (spelt as the user did) refused: a
// duration without a unit as the manifest's timeouts explain it, a number
// that is not one, else the value's own reason.
func valueError(f *flag.Flag, spelt, value, reason string) string {
	if f != nil {
		if g, ok := f.Value.(flag.Getter); ok {
			switch g.Get().(type) {
			case time.Duration:
				if _, err := strconv.ParseFloat(value, 64); err == nil {
					return fmt.Sprintf("%s %q has no unit; write it with one, as in %s %ss", spelt, value, spelt, value)
				}
				return fmt.Sprintf("%s %q is not a duration; write one such as 90s, 2m or 1h30m", spelt, value)
			case int:
				return fmt.Sprintf("%s %q is not a whole number", spelt, value)
			}
		}
	}
	return fmt.Sprintf("invalid value %q for %s: %s", value, spelt, reason)
}

// spelling returns flag name as the user typed it (-name or --name),
// looking through typed from the end; --name when it is not there.
func spelling(typed []string, name string) string {
	for _, a := range slices.Backward(typed) {
		a, _, _ = strings.Cut(a, "=")
		if strings.TrimLeft(a, "-") == strings.TrimLeft(name, "-") && strings.HasPrefix(a, "-") {
			return a
		}
	}
	return "--" + strings.TrimLeft(name, "-")
}

// usageError reports a usage error of command c in one line, and a second
// line saying where its usage is, and returns exitUsage.
func (e *env) usageError(c *command, format string, args ...any) int {
	fmt.Fprintf(e.stderr, "planc %s: %s\n", c.name, fmt.Sprintf(format, args...))
	fmt.Fprintf(e.stderr, "run 'planc help %s' for its usage\n", c.name)
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
