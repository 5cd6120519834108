package progress

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mattn/go-runewidth"

	"github.com/planc/planc/ir"
	"github.com/planc/planc/vm"
)

// The live view (--progress=tty): a heading and one row per step in plan
// order, waiting, running with its elapsed time, settled with its status,
// or not run, redrawn in place by a ticker, so a burst of events costs one
// redraw. It asks the terminal's size at every redraw and never writes a
// line as wide as the terminal: the last column stays free, so that no
// terminal wraps a line and the count of lines to redraw stays exact.

// progressTick is how often the live view is redrawn while the plan runs.
const progressTick = 100 * time.Millisecond

// maxIDCells bounds the id column.
const maxIDCells = 32

// liveView is the live view.
type liveView struct {
	w    io.Writer
	size func() (cols, rows int)
	now  func() time.Time

	mu     sync.Mutex
	t      stepTracker
	drawn  []int // the cells of each line the last drawing wrote
	ended  bool
	quit   chan struct{}
	ticker sync.WaitGroup
	buf    bytes.Buffer
}

// newLiveView returns the live view on w, a terminal whose size size
// returns.
func newLiveView(w io.Writer, size func() (int, int)) *liveView {
	if size == nil {
		size = func() (int, int) { return defaultCols, defaultRows }
	}
	return &liveView{w: w, size: size, now: time.Now, quit: make(chan struct{})}
}

// Observe implements View.
func (v *liveView) Observe(prog *ir.Program, e vm.Event) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.t.init(prog) {
		v.ticker.Go(v.tick)
	}
	v.t.apply(e, v.now())
	if e.Kind == vm.PlanEnd {
		v.redraw()
		v.ended = true
	}
}

// Note implements View: the line goes above the view, wrapped to
// the terminal's width, and the view is drawn again below it.
func (v *liveView) Note(line string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	cols, _ := v.size()
	b := &v.buf
	b.Reset()
	v.moveUp(b, cols)
	b.WriteString("\x1b[J")
	for _, l := range strings.Split(runewidth.Wrap(printable(line), max(cols-1, 1)), "\n") {
		b.WriteString(fit(strings.TrimSpace(l), max(cols-1, 1)))
		b.WriteByte('\n')
	}
	v.w.Write(b.Bytes())
	v.drawn = v.drawn[:0]
	if !v.ended {
		v.redraw()
	}
}

// Refused implements View: the diagnostics say it already.
func (v *liveView) Refused(string) {}

// tick redraws the view until the plan ends or stop is called.
func (v *liveView) tick() {
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

// Stop implements View: it ends the ticker, and draws the view a
// last time if the plan's end did not.
func (v *liveView) Stop() {
	close(v.quit)
	v.ticker.Wait()
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.ended {
		v.redraw()
		v.ended = true
	}
}

// moveUp writes the cursor movement to the first line of the last
// drawing. Lines drawn at a wider terminal may since have been rewrapped
// at cols: each counts the rows it takes now.
func (v *liveView) moveUp(b *bytes.Buffer, cols int) {
	n := 0
	for _, c := range v.drawn {
		n += max(1, (c+cols-1)/max(cols, 1))
	}
	if n > 0 {
		fmt.Fprintf(b, "\x1b[%dF", n)
	}
}

// redraw writes the view over its previous drawing. The caller holds mu.
func (v *liveView) redraw() {
	if v.t.prog == nil {
		return
	}
	cols, rows := v.size()
	b := &v.buf
	b.Reset()
	v.moveUp(b, cols)
	v.drawn = v.drawn[:0]
	for _, l := range v.lines(v.now(), max(cols-1, 1), rows) {
		b.WriteString("\x1b[2K")
		b.WriteString(l)
		b.WriteByte('\n')
		v.drawn = append(v.drawn, runewidth.StringWidth(l))
	}
	b.WriteString("\x1b[J") // clear what an earlier, longer drawing left
	v.w.Write(b.Bytes())
}

// lines renders the view for a terminal of cols usable columns and rows
// rows: a heading, then one row per step in plan order. When the steps do
// not all fit, the running steps are kept first, then failed, waiting and
// not-run ones, then the other settled ones, still shown in plan order,
// and a last line counts the rows left out.
func (v *liveView) lines(now time.Time, cols, rows int) []string {
	t := &v.t
	settled, running, waiting, notRun := t.counts()
	head := fmt.Sprintf("plan %q", t.prog.ID)
	if t.end != nil {
		head += " " + t.end.Outcome.String()
	}
	head += fmt.Sprintf(": %d steps, %d settled", len(t.rows), settled)
	for _, c := range []struct {
		n    int
		what string
	}{{running, "running"}, {waiting, "waiting"}, {notRun, "not run"}} {
		if c.n > 0 {
			head += fmt.Sprintf(", %d %s", c.n, c.what)
		}
	}
	out := []string{fit(head, cols)}

	shown := make([]int, len(t.rows))
	for i := range shown {
		shown[i] = i
	}
	room := rows - 2 // the heading, and the line the cursor rests on
	var rest []int
	if len(shown) > room {
		slices.SortStableFunc(shown, func(a, b int) int { return v.rank(a) - v.rank(b) })
		keep := max(room-1, 1) // and a line for the rest
		shown, rest = shown[:keep], shown[keep:]
		slices.Sort(shown)
	}
	idw := 4
	for _, i := range shown {
		idw = max(idw, runewidth.StringWidth(printable(t.prog.Steps[i].ID)))
	}
	idw = min(idw, maxIDCells, max(8, cols/3))
	for _, i := range shown {
		out = append(out, fit(v.row(i, idw, now), cols))
	}
	if len(rest) > 0 {
		var s, w int
		for _, i := range rest {
			if t.rows[i].state == stepSettled {
				s++
			} else {
				w++
			}
		}
		out = append(out, fit(fmt.Sprintf("  … %d more steps: %d settled, %d not started", len(rest), s, w), cols))
	}
	return out
}

// rank orders rows for a view too short for them all: running, failed,
// waiting, not run, other settled.
func (v *liveView) rank(i int) int {
	r := v.t.rows[i]
	switch {
	case r.state == stepRunning:
		return 0
	case r.state == stepSettled && r.status == vm.StatusFailed:
		return 1
	case r.state == stepWaiting && !v.t.notRun(i):
		return 2
	case r.state == stepWaiting:
		return 3
	}
	return 4
}

// row renders step i's line, its id in a column idw cells wide.
func (v *liveView) row(i, idw int, now time.Time) string {
	s, r := &v.t.prog.Steps[i], v.t.rows[i]
	var state string
	switch {
	case v.t.notRun(i):
		state = "not run"
	case r.state == stepWaiting:
		state = "waiting"
	case r.state == stepRunning:
		state = "running " + elapsed(now.Sub(r.start))
		if r.attempt > 1 {
			state += fmt.Sprintf(" (attempt %d)", r.attempt)
		}
	case r.reused:
		state = "success, reused from an earlier run"
	default:
		state = r.status.String()
		if r.attempt > 0 {
			state += " " + elapsed(r.dur)
		}
		if r.attempt > 1 { // a retry settled it: say which attempt did
			state += fmt.Sprintf(" (attempt %d)", r.attempt)
		}
		if r.err != "" {
			state += ": " + printable(r.err)
		}
	}
	id := runewidth.FillRight(fit(printable(s.ID), idw), idw)
	return fmt.Sprintf("  %s  %-7s  %s", id, s.Kind, state)
}
