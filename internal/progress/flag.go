package progress

import (
	"slices"
	"strings"

	"github.com/planc/planc/internal/cliflag"
)

// Flag is planc run's --progress: bare it is TTY; --progress=MODE names
// one of Modes.
type Flag struct {
	Mode  Mode
	typed string // as given after "=", "true" when bare
}

// String returns the mode's name.
func (f *Flag) String() string {
	if f.Mode == Auto {
		return ""
	}
	return Modes[f.Mode-TTY]
}

// Set takes the value after "=", or "true" for a bare --progress.
func (f *Flag) Set(s string) error {
	f.typed = s
	switch s {
	case "true":
		f.Mode = TTY
		return nil
	case "false":
		f.Mode = Off
		return nil
	}
	if err := cliflag.NewChoice("", Modes...).Set(s); err != nil {
		return err
	}
	f.Mode = TTY + Mode(slices.Index(Modes, s))
	return nil
}

// IsBoolFlag lets --progress stand alone, as the flag package's bool flags
// do; its mode then comes after "=".
func (f *Flag) IsBoolFlag() bool { return true }

// Spelt returns the flag as given, for messages: --progress or
// --progress=MODE.
func (f *Flag) Spelt() string {
	if f.typed == "true" {
		return "--progress"
	}
	return "--progress=" + f.typed
}

// ValueApart reports whether args gave --progress's mode as a word of its
// own (--progress lines), which the flag package reads as a bare
// --progress and a positional argument: pos, the positional arguments,
// start with a mode.
func ValueApart(args, pos []string) bool {
	if len(pos) == 0 || !slices.Contains(Modes, pos[0]) {
		return false
	}
	for i := 1; i < len(args); i++ {
		if args[i] == pos[0] && strings.TrimLeft(args[i-1], "-") == "progress" {
			return true
		}
	}
	return false
}
