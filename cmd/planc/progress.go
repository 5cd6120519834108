package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/mattn/go-runewidth"
	"golang.org/x/term"

	"github.com/planc/planc/ir"
	"github.com/planc/planc/vm"
)

// What planc run shows on standard error while a plan runs
// (docs/progress.md): the live view (tty), one plain line per step event
// (lines), or nothing (off). Both views are driven by the VM's trace
// events through host.Config's Observe.

// progressMode is the --progress mode.
type progressMode uint8

// The modes; progressAuto is tty on a terminal and off otherwise.
const (
	progressAuto progressMode = iota
	progressTTY
	progressLines
	progressOff
)

var progressModes = []string{"tty", "lines", "off"}

// progressFlag is --progress: bare it is tty; --progress=MODE names one.
type progressFlag struct {
	mode  progressMode
	typed string // as given after "=", "true" when bare
}

// String returns the mode's name.
func (f *progressFlag) String() string {
	if f.mode == progressAuto {
		return ""
	}
	return progressModes[f.mode-progressTTY]
}

// Set takes the value after "=", or "true" for a bare --progress.
func (f *progressFlag) Set(s string) error {
	f.typed = s
	switch s {
	case "true":
		f.mode = progressTTY
		return nil
	case "false":
		f.mode = progressOff
		return nil
	}
	c := choiceFlag{choices: progressModes}
	if err := c.Set(s); err != nil {
		return err
	}
	f.mode = progressTTY + progressMode(slices.Index(progressModes, s))
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

// progressView is what newProgress returns: a live view or a line writer.
type progressView interface {
	// observe takes one VM event (host.Config.Observe).
	observe(prog *ir.Program, e vm.Event)
	// note writes a line of planc's own (host.Config.Notice) without
	// breaking the view.
	note(line string)
	// refused says the plan was refused before any step ran, and why.
	refused(why string)
	// stop ends the view; what it drew last stays.
	stop()
}

// newProgress returns the view mode asks for on w, or nil for none. TERM
// is the environment's: a terminal whose TERM is dumb cannot move its
// cursor, so the live view falls back to lines there; so does a forced
// live view on something that is not a terminal (a pipe, a file, a CI
// log), which could only show the redraw codes, and a Windows console
// that does not take them.
func newProgress(w io.Writer, mode progressMode, termName string) progressView {
	fd, tty := terminal(w)
	switch mode {
	case progressOff:
		return nil
	case progressAuto:
		if !tty {
			return nil
		}
		mode = progressTTY
	}
	w = endOnError(w) // a reader that goes away ends the view, not the run
	var size func() (int, int)
	if tty {
		size = func() (int, int) { return terminalSize(fd) }
	}
	if mode == progressTTY && tty && termName != "dumb" && cursorMoves(fd) {
		return newLiveView(w, size)
	}
	return newLinesView(w, size)
}

// terminal reports whether w is a terminal, and its descriptor.
func terminal(w io.Writer) (int, bool) {
	f, ok := w.(*os.File)
	if !ok {
		return 0, false
	}
	fd := int(f.Fd())
	return fd, term.IsTerminal(fd)
}

// The size assumed when a terminal does not tell its own.
const (
	defaultCols = 80
	defaultRows = 24
)

// terminalSize returns the terminal's columns and rows.
func terminalSize(fd int) (cols, rows int) {
	cols, rows, err := term.GetSize(fd)
	if err != nil || cols <= 0 {
		cols = defaultCols
	}
	if err != nil || rows <= 2 {
		rows = defaultRows
	}
	return cols, rows
}

// stepState is what the views know of one step.
type stepState uint8

const (
	stepWaiting stepState = iota
	stepRunning
	stepSettled
)

// stepRow is one step as the views know it.
type stepRow struct {
	state   stepState
	attempt int
	start   time.Time
	dur     time.Duration
	status  vm.Status
	err     string
	reused  bool // a redrive kept its earlier success (S26)
}

// stepTracker folds the VM's events into one row per step, in plan order.
// After a fail-stop (S18) and after plan_end, a step still waiting will
// never run: notRun says so.
type stepTracker struct {
	prog    *ir.Program
	rows    []stepRow
	index   map[string]int
	stopped bool // a step's final failure under on_error fail stopped the plan
	end     *vm.Event
}

// init starts tracking prog; it reports false when it already was.
func (t *stepTracker) init(prog *ir.Program) bool {
	if t.prog != nil {
		return false
	}
	t.prog = prog
	t.rows = make([]stepRow, len(prog.Steps))
	t.index = make(map[string]int, len(prog.Steps))
	for i := range prog.Steps {
		t.index[prog.Steps[i].ID] = i
	}
	return true
}

// apply folds e in at time now and returns the step's index, or -1.
func (t *stepTracker) apply(e vm.Event, now time.Time) int {
	i, ok := t.index[e.StepID]
	switch {
	case e.Kind == vm.PlanStepStart && ok:
		t.rows[i] = stepRow{state: stepRunning, attempt: e.Attempt, start: now}
		return i
	case e.Kind == vm.PlanStep && ok:
		r := &t.rows[i]
		if e.Attempt > 0 {
			r.attempt = e.Attempt
		}
		if !e.Final {
			// A failed attempt its retries follow (S19): the step is not
			// settled, its next start comes at once.
			r.err = e.Error
			return i
		}
		r.state, r.status, r.dur, r.err, r.reused = stepSettled, e.Status, e.Duration, e.Error, e.Reused
		if e.Stopped {
			t.stopped = true
		}
		return i
	case e.Kind == vm.PlanEnd:
		t.end = &e
	}
	return -1
}

// notRun reports whether row i is a step that will never run.
func (t *stepTracker) notRun(i int) bool {
	return t.rows[i].state == stepWaiting && (t.stopped || t.end != nil)
}

// counts returns how many steps are settled, running, waiting and not run.
func (t *stepTracker) counts() (settled, running, waiting, notRun int) {
	for i, r := range t.rows {
		switch {
		case r.state == stepSettled:
			settled++
		case r.state == stepRunning:
			running++
		case t.notRun(i):
			notRun++
		default:
			waiting++
		}
	}
	return
}

// elapsed formats a duration for a row: 0.4s, 12.0s, 3m05s.
func elapsed(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}

// printable makes s one line that is safe on a terminal: control
// characters (newlines included) become spaces, and the bidirectional
// controls that would reorder what follows become U+FFFD.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case unicode.Is(unicode.Bidi_Control, r):
			return '\uFFFD'
		case unicode.IsControl(r):
			return ' '
		}
		return r
	}, s)
}

// fit cuts s to at most cols terminal cells, marking a cut with "…".
func fit(s string, cols int) string {
	if cols <= 0 {
		return ""
	}
	if runewidth.StringWidth(s) <= cols {
		return s
	}
	return runewidth.Truncate(s, cols, "…")
}
