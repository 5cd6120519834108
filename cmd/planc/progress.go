package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/planc/planc/ir"
	"github.com/planc/planc/vm"
)

// The live view of planc run (cli.md): one row per step, waiting, running
// with its elapsed time, or settled with its status, redrawn in place on
// standard error. It is driven by the VM's trace events (host.Config's
// Observe) and redrawn by a ticker, so a burst of events costs one redraw.

// progressTick is how often the view is redrawn while the plan runs.
const progressTick = 100 * time.Millisecond

// defaultRows is the view's height when the terminal's is unknown.
const defaultRows = 24

// row states.
const (
	rowWaiting = iota
	rowRunning
	rowSettled
)

// progressRow is one step's line.
type progressRow struct {
	state   uint8
	attempt int
	start   time.Time
	dur     time.Duration
	status  vm.Status
}

// progressView is the live view.
type progressView struct {
	w      io.Writer
	height int // rows the terminal shows; the view keeps within it

	mu     sync.Mutex
	prog   *ir.Program
	rows   []progressRow
	index  map[string]int
	drawn  int // lines the last redraw wrote
	ended  bool
	quit   chan struct{}
	ticker sync.WaitGroup
	buf    bytes.Buffer
}

// newProgressView returns the live view on w, or nil when it is off:
// --quiet, or w is not a terminal and --progress was not given.
func newProgressView(w io.Writer, force, quiet bool) *progressView {
	if quiet {
		return nil
	}
	height := defaultRows
	f, isFile := w.(*os.File)
	tty := isFile && term.IsTerminal(int(f.Fd()))
	if !tty && !force {
		return nil
	}
	if tty {
		if _, h, err := term.GetSize(int(f.Fd())); err == nil && h > 2 {
			height = h
		}
	}
	return &progressView{w: w, height: height, quit: make(chan struct{})}
}

// observe takes one VM event (host.Config.Observe).
func (v *progressView) observe(prog *ir.Program, e vm.Event) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.prog == nil {
		v.prog = prog
		v.rows = make([]progressRow, len(prog.Steps))
		v.index = make(map[string]int, len(prog.Steps))
		for i := range prog.Steps {
			v.index[prog.Steps[i].ID] = i
		}
		v.ticker.Go(v.tick)
	}
	i, ok := v.index[e.StepID]
	switch {
	case e.Kind == vm.PlanStepStart && ok:
		v.rows[i] = progressRow{state: rowRunning, attempt: e.Attempt, start: time.Now()}
	case e.Kind == vm.PlanStep && ok:
		r := &v.rows[i]
		r.state, r.status, r.dur = rowSettled, e.Status, e.Duration
	case e.Kind == vm.PlanEnd:
		v.ended = true
		v.redraw()
		return
	}
}

// tick redraws the view until the plan ends or stop is called.
func (v *progressView) tick() {
	t := time.NewTicker(progressTick)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			v.mu.Lock()
			if !v.ended {
				v.redraw()
			}
			v.mu.Unlock()
		case <-v.quit:
			return
		}
	}
}

// stop ends the ticker; the last drawing stays on the screen.
func (v *progressView) stop() {
	close(v.quit)
	v.ticker.Wait()
}

// redraw writes the view over its previous drawing. The caller holds mu.
func (v *progressView) redraw() {
	if v.prog == nil {
		return
	}
	b := &v.buf
	b.Reset()
	if v.drawn > 0 {
		fmt.Fprintf(b, "\x1b[%dF", v.drawn) // to the start of the first line drawn
	}
	lines := v.lines(time.Now())
	for _, l := range lines {
		b.WriteString("\x1b[2K")
		b.WriteString(l)
		b.WriteByte('\n')
	}
	b.WriteString("\x1b[J") // clear what an earlier, longer drawing left
	v.drawn = len(lines)
	v.w.Write(b.Bytes())
}

// lines renders the view: a heading, then one row per step in plan order,
// running steps first when they do not all fit, and a last line counting
// the rows left out.
func (v *progressView) lines(now time.Time) []string {
	var waiting, running, settled int
	width := 4
	for i, r := range v.rows {
		switch r.state {
		case rowWaiting:
			waiting++
		case rowRunning:
			running++
		default:
			settled++
		}
		width = max(width, min(len(v.prog.Steps[i].ID), 32))
	}
	out := []string{fmt.Sprintf("plan %q: %d steps, %d settled, %d running, %d waiting", v.prog.ID, len(v.rows), settled, running, waiting)}
	room := v.height - 2
	order := make([]int, 0, len(v.rows))
	if len(v.rows) > room {
		for i, r := range v.rows {
			if r.state == rowRunning {
				order = append(order, i)
			}
		}
		for i, r := range v.rows {
			if r.state != rowRunning {
				order = append(order, i)
			}
		}
	} else {
		for i := range v.rows {
			order = append(order, i)
		}
	}
	shown := len(order)
	if shown > room {
		shown = max(room-1, 1) // and a line for the rest
	}
	for _, i := range order[:shown] {
		out = append(out, v.row(i, width, now))
	}
	if rest := len(order) - shown; rest > 0 {
		out = append(out, fmt.Sprintf("  … %d more steps", rest))
	}
	return out
}

// row renders step i's line.
func (v *progressView) row(i, width int, now time.Time) string {
	s, r := &v.prog.Steps[i], v.rows[i]
	id := s.ID
	if len(id) > width {
		cut := width - 1
		for cut > 0 && !utf8.RuneStart(id[cut]) {
			cut--
		}
		id = id[:cut] + "…"
	}
	var state string
	switch r.state {
	case rowWaiting:
		state = "waiting"
	case rowRunning:
		state = "running " + elapsed(now.Sub(r.start))
		if r.attempt > 1 {
			state += fmt.Sprintf(" (attempt %d)", r.attempt)
		}
	default:
		state = r.status.String()
		if r.attempt > 0 || r.dur > 0 {
			state += " " + elapsed(r.dur)
		}
	}
	return fmt.Sprintf("  %-*s  %-7s  %s", width, id, s.Kind, state)
}

// elapsed formats a duration for a row: 0.4s, 12.0s, 3m05s.
func elapsed(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}
