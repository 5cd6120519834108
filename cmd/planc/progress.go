package main

import (
	"slices"

	"github.com/planc/planc/internal/progress"
)

// progressFlag is --progress: bare it is tty; --progress=MODE names one.
type progressFlag struct {
	mode  progress.Mode
	typed string // as given after "=", "true" when bare
}

// String returns the mode's name.
func (f *progressFlag) String() string {
	if f.mode == progress.Auto {
		return ""
	}
	return progress.Modes[f.mode-progress.TTY]
}

// Set takes the value after "=", or "true" for a bare --progress.
func (f *progressFlag) Set(s string) error {
	f.typed = s
	switch s {
	case "true":
		f.mode = progress.TTY
		return nil
	case "false":
		f.mode = progress.Off
		return nil
	}
	c := choiceFlag{choices: progress.Modes}
	if err := c.Set(s); err != nil {
		return err
	}
	f.mode = progress.TTY + progress.Mode(slices.Index(progress.Modes, s))
	return nil
}

// IsBoolFlag lets --progress stand alone, as the flag package's bool flags
// do; its mode then comes after "=".
func (f *progressFlag) IsBoolFlag() bool { return true }

// spelt returns the flag as given, for messages: --progress or
// --progress=MODE.
func (f *progressFlag) spelt() string {
	if f.typed == "true" {
		return "--progress"
	}
	return "--progress=" + f.typed
}
