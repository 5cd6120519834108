// Package cliflag parses planc's command lines with the flag package and
// says what went wrong in planc's words: flags before and after the
// positional arguments, the flag as the user spelt it, a did-you-mean for
// a misspelt flag or word, and for a bad value what a good one looks like.
package cliflag

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

// NewSet returns a flag set called name that prints nothing itself: its
// caller reports errors (Explain) and help in its own words.
func NewSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// IsSet reports whether the flag name was given.
func IsSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// typedError is an error of fs.Parse with the arguments it had consumed
// when it failed: the failing flag is among them, as the user typed it.
type typedError struct {
	err   error
	typed []string
}

func (e *typedError) Error() string { return e.err.Error() }
func (e *typedError) Unwrap() error { return e.err }

// Parse parses flags before and after positional arguments, so that both
// `planc check --werror a.json` and `planc check a.json --werror` work, and
// returns the positional arguments. "--" ends the flags; "-" (standard
// input) is a positional argument. Its error is flag.ErrHelp for -h, else
// one for Explain.
func Parse(fs *flag.FlagSet, args []string) ([]string, error) {
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

// The flag package's error texts that Explain rewords.
const (
	errUndefined = "flag provided but not defined: -"
	errNoValue   = "flag needs an argument: -"
	errValue     = "invalid value "
	errBool      = "invalid boolean value "
	errSyntax    = "bad flag syntax: "
)

// Explain rewords an error of Parse with fs in planc's words: the flag as
// the user spelt it (--format, not -format), a did-you-mean for a misspelt
// flag, and for a bad value what a good one looks like.
func Explain(fs *flag.FlagSet, err error) string {
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
		if c, ok := fs.Lookup(name).Value.(*Choice); ok {
			msg += ": " + OrList(c.Choices)
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

// Choice is a flag.Value that accepts one of a fixed set of words.
type Choice struct {
	Value   string
	Choices []string
}

// NewChoice returns a Choice of choices whose value is def.
func NewChoice(def string, choices ...string) *Choice {
	return &Choice{Value: def, Choices: choices}
}

// String returns the current value.
func (f *Choice) String() string { return f.Value }

// Set accepts s when it is one of the choices; else its error names them
// and the one s may have meant.
func (f *Choice) Set(s string) error {
	if !slices.Contains(f.Choices, s) {
		msg := "want " + OrList(f.Choices)
		if sug := ast.Suggest(s, f.Choices); sug != "" {
			msg += fmt.Sprintf("; did you mean %q?", sug)
		}
		return errors.New(msg)
	}
	f.Value = s
	return nil
}

// OrList formats words as "a, b or c".
func OrList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// Unknown says that s is none of words, which are of kind (a view, a
// command): with a did-you-mean when one is near, else listing them.
func Unknown(kind, s string, words []string) string {
	if sug := ast.Suggest(s, words); sug != "" {
		return fmt.Sprintf("unknown %s %q; did you mean %q?", kind, s, sug)
	}
	return fmt.Sprintf("unknown %s %q; want %s", kind, s, OrList(words))
}

// Misplaced returns the first flag given on fs that subcommand sub of cmd
// does not take, in words ("--NAME is for CMD a or b, not sub"), or "";
// takes maps each flag to the subcommands that take it.
func Misplaced(fs *flag.FlagSet, cmd, sub string, takes map[string][]string) string {
	var bad string
	fs.Visit(func(f *flag.Flag) {
		if subs := takes[f.Name]; bad == "" && !slices.Contains(subs, sub) {
			bad = fmt.Sprintf("--%s is for %s %s, not %s", f.Name, cmd, OrList(subs), sub)
		}
	})
	return bad
}
