// Package progress is what planc run shows on standard error while a plan
// runs (docs/progress.md): the live view (TTY), one plain line per step
// event (Lines), or nothing (Off). Both views are driven by the VM's trace
// events through host.Config's Observe and fold them with one step
// tracker. cmd/planc parses --progress and wires a View to the run.
package progress

import (
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/mattn/go-runewidth"
	"golang.org/x/term"

	"github.com/planc/planc/internal/termtext"
	"github.com/planc/planc/ir"
	"github.com/planc/planc/vm"
)

// Mode is the --progress mode.
type Mode uint8

// The modes; Auto is TTY on a terminal and Off otherwise.
const (
	Auto Mode = iota
	TTY
	Lines
	Off
)

// Modes are the modes' names, as --progress=MODE takes them: TTY's first.
var Modes = []string{"tty", "lines", "off"}

// View is what New returns: a live view or a line writer.
type View interface {
	// Observe takes one VM event (host.Config.Observe).
	Observe(prog *ir.Program, e vm.Event)
	// Note writes a line of planc's own (host.Config.Notice) without
	// breaking the view.
	Note(line string)
	// Refused says the plan was refused before any step ran, and why.
	Refused(why string)
	// Stop ends the view; what it drew last stays.
	Stop()
}

// New returns the view mode asks for on w, or nil for none. TERM
// is the environment's: a terminal whose TERM is dumb cannot move its
// cursor, so the live view falls back to lines there; so does a forced
// live view on something that is not a terminal (a pipe, a file, a CI
// log), which could only show the redraw codes, and a Windows console
// that does not take them.
func New(w io.Writer, mode Mode, termName string) View {
	fd, tty := termtext.Terminal(w)
	switch mode {
	case Off:
		return nil
	case Auto:
		if !tty {
			return nil
		}
		mode = TTY
	}
	w = endOnError(w) // a reader that goes away ends the view, not the run
	var size func() (int, int)
	if tty {
		size = func() (int, int) { return terminalSize(fd) }
	}
	if mode == TTY && tty && termName != "dumb" && cursorMoves(fd) {
		return newLiveView(w, size)
	}
	return newLinesView(w, size)
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

// endOnError wraps a view's writer: once a write fails (its reader went
// away), the view writes nothing more and says nothing of it, and the run
// goes on.
func endOnError(w io.Writer) io.Writer { return &viewWriter{w: w} }

type viewWriter struct {
	w     io.Writer
	ended atomic.Bool
}

func (v *viewWriter) Write(p []byte) (int, error) {
	if v.ended.Load() {
		return len(p), nil
	}
	if _, err := v.w.Write(p); err != nil {
		v.ended.Store(true)
	}
	return len(p), nil
}
