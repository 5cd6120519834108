package progress

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/planc/planc/ir"
	"github.com/planc/planc/vm"
)

// The lines view (--progress=lines): one plain line per step event, for
// CI logs and pipes, and for terminals that cannot move their cursor
// (TERM=dumb). No line holds an escape sequence; on a terminal, none is as
// wide as it. Each line starts with the time since the plan started:
//
//	  0.00s  plan     "tools": 5 steps
//	  0.00s  start    list (tool)
//	  0.01s  success  list 0.0s
//	  0.01s  retry    read: attempt 1 failed 0.0s: open a.txt: no such file or directory
//	  0.01s  start    read (tool, attempt 2)
//	  0.02s  failed   read 0.0s: open a.txt: no such file or directory
//	  0.02s  not run  note
//	  0.02s  end      "tools" failed at "read": 1 succeeded, 1 failed, 0 skipped, 1 not run
//
// A failed attempt that the step's retries (S19) will follow is a retry,
// not a settling: the VM says which (Event.Final), also in a redrive, whose
// attempt numbers go on from the earlier run's.

// linesView is the lines view.
type linesView struct {
	w    io.Writer
	size func() (cols, rows int) // nil: not a terminal, no width
	now  func() time.Time

	mu sync.Mutex
	t  stepTracker
	t0 time.Time
}

// newLinesView returns the lines view on w; size is nil unless w is a
// terminal.
func newLinesView(w io.Writer, size func() (int, int)) *linesView {
	return &linesView{w: w, size: size, now: time.Now}
}

// Observe implements View.
func (v *linesView) Observe(prog *ir.Program, e vm.Event) {
	v.mu.Lock()
	defer v.mu.Unlock()
	now := v.now()
	if v.t.init(prog) {
		v.t0 = now
	}
	i := v.t.apply(e, now)
	switch e.Kind {
	case vm.PlanStart:
		v.printf(now, "plan", "%q: %d steps", prog.ID, len(prog.Steps))
	case vm.PlanStepStart:
		what := e.StepKind.String()
		if e.Attempt > 1 {
			what += fmt.Sprintf(", attempt %d", e.Attempt)
		}
		v.printf(now, "start", "%s (%s)", e.StepID, what)
	case vm.PlanStep:
		if i >= 0 && !e.Final {
			v.printf(now, "retry", "%s: attempt %d failed %s%s", e.StepID, e.Attempt, elapsed(e.Duration), errSuffix(e.Error))
			return
		}
		v.settled(now, e)
	case vm.PlanEnd:
		var notRun []string
		for i := range v.t.rows {
			if v.t.notRun(i) {
				notRun = append(notRun, prog.Steps[i].ID)
				v.printf(now, "not run", "%s", prog.Steps[i].ID)
			}
		}
		msg := fmt.Sprintf("%q %s", e.PlanID, e.Outcome)
		if e.FailedStep != "" {
			msg += fmt.Sprintf(" at %q", e.FailedStep)
		}
		msg += fmt.Sprintf(": %d succeeded, %d failed, %d skipped", e.Succeeded, e.Failed, e.Skipped)
		if len(notRun) > 0 {
			msg += fmt.Sprintf(", %d not run", len(notRun))
		}
		v.printf(now, "end", "%s", msg)
	}
}

// settled prints the line of a step's settling.
func (v *linesView) settled(at time.Time, e vm.Event) {
	if e.Reused {
		v.printf(at, "reused", "%s: its success in an earlier run is kept", e.StepID)
		return
	}
	msg := e.StepID
	if e.Attempt > 0 {
		msg += " " + elapsed(e.Duration)
	}
	v.printf(at, e.Status.String(), "%s%s", msg, errSuffix(e.Error))
}

// errSuffix is ": err", or "" for no error.
func errSuffix(err string) string {
	if err == "" {
		return ""
	}
	return ": " + err
}

// Note implements View.
func (v *linesView) Note(line string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.write(line)
}

// Refused implements View.
func (v *linesView) Refused(why string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.t0.IsZero() {
		v.t0 = v.now()
	}
	v.printf(v.now(), "refused", "%s", why)
}

// Stop implements View.
func (v *linesView) Stop() {}

// printf writes one event line: the time since the plan started, the
// event's word, its text.
func (v *linesView) printf(at time.Time, word, format string, args ...any) {
	v.write(fmt.Sprintf("%7.2fs  %-7s  %s", at.Sub(v.t0).Seconds(), word, fmt.Sprintf(format, args...)))
}

// write writes line as one line: control characters flattened, and cut
// to a terminal's width when w is one.
func (v *linesView) write(line string) {
	line = printable(strings.TrimRight(line, "\n"))
	if v.size != nil {
		cols, _ := v.size()
		line = fit(line, max(cols-1, 1))
	}
	io.WriteString(v.w, line+"\n")
}
