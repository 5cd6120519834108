package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mattn/go-runewidth"

	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/ir"
	"github.com/planc/planc/vm"
)

// TestNewProgressOffTerminal: off a terminal, auto is off and both tty
// and lines give the lines view; off is nothing.
func TestNewProgressOffTerminal(t *testing.T) {
	var b bytes.Buffer
	for mode, want := range map[Mode]string{Auto: "<nil>", Off: "<nil>", TTY: "*linesView", Lines: "*linesView"} {
		got := "<nil>"
		if v := New(&b, mode, "xterm"); v != nil {
			got = typeName(v)
		}
		if got != want {
			t.Errorf("mode %d into a buffer: %s, want %s", mode, got, want)
		}
	}
}

func typeName(v any) string {
	switch v.(type) {
	case *linesView:
		return "*linesView"
	case *liveView:
		return "*liveView"
	}
	return "?"
}

// TestLiveViewLines: the live view's rows, driven by events, at widths
// from 12 to 200 columns: never as wide as the terminal, even with wide
// characters and control characters in ids and errors; rows in plan
// order; steps after a fail-stop shown as not run; a short terminal keeps
// the running and failed steps in view.
func TestLiveViewLines(t *testing.T) {
	prog := &ir.Program{ID: "p", Steps: []ir.Step{
		{ID: "first-step-with-a-rather-long-identifier", Kind: ir.KindTool},
		{ID: "読み込み長いステップ名前の例です", Kind: ir.KindShell},
		{ID: "bidi\u202eevil\nid", Kind: ir.KindShell},
		{ID: "c", Kind: ir.KindTool},
		{ID: "d", Kind: ir.KindTool},
	}}
	t0 := time.Unix(0, 0)
	events := []vm.Event{
		{Kind: vm.PlanStart, Steps: 5},
		{Kind: vm.PlanStepStart, StepID: prog.Steps[0].ID, Attempt: 1},
		{Kind: vm.PlanStepStart, StepID: prog.Steps[2].ID, Attempt: 1},
		{Kind: vm.PlanStep, StepID: prog.Steps[0].ID, Attempt: 1, Status: vm.StatusFailed, Duration: time.Second, Error: "exit status 1\nand a second line of error text that goes on", Final: true, Stopped: true},
	}
	v := newLiveView(nil, nil)
	v.now = func() time.Time { return t0.Add(2 * time.Second) }
	v.t.init(prog)
	for _, e := range events {
		v.t.apply(e, t0)
	}
	for _, cols := range []int{12, 40, 80, 200} {
		lines := v.lines(v.now(), cols-1, 30)
		for _, l := range lines {
			if w := runewidth.StringWidth(l); w >= cols || strings.ContainsAny(l, "\n\u202e\x1b") {
				t.Errorf("cols %d: line %q is %d cells or holds a control character", cols, l, w)
			}
		}
		if cols < 80 {
			continue
		}
		want := []string{
			`plan "p": 5 steps, 1 settled, 1 running, 3 not run`,
			"  first-step-with-a-rather-long-i…  tool     failed 1.0s: exit status 1 and a second line of error text that goes on",
			"  読み込み長いステップ名前の例です  shell    not run",
			"  bidi\uFFFDevil id                      shell    running 2.0s",
			"  c                                 tool     not run",
			"  d                                 tool     not run",
		}
		if cols == 80 {
			want = []string{
				`plan "p": 5 steps, 1 settled, 1 running, 3 not run`,
				"  first-step-with-a-rather-…  tool     failed 1.0s: exit status 1 and a second…",
				"  読み込み長いステップ名前…   shell    not run",
				"  bidi\uFFFDevil id                shell    running 2.0s",
				"  c                           tool     not run",
				"  d                           tool     not run",
			}
		}
		if diff := cmp.Diff(want, lines); diff != "" {
			t.Errorf("cols %d (-want +got):\n%s", cols, diff)
		}
	}
	// Five rows in a terminal of five: the failed and running steps stay.
	want := []string{
		`plan "p": 5 steps, 1 settled, 1 running, 3 not run`,
		"  first-step-with-a-rather-…  tool     failed 1.0s: exit status 1 and a second…",
		"  bidi\uFFFDevil id                shell    running 2.0s",
		"  … 3 more steps: 0 settled, 3 not started",
	}
	if diff := cmp.Diff(want, v.lines(v.now(), 79, 5)); diff != "" {
		t.Errorf("5 rows (-want +got):\n%s", diff)
	}
}

// TestLiveViewNote: a line of planc's own written while the view is up
// goes above it, wrapped to the terminal, and leaves one drawing below.
func TestLiveViewNote(t *testing.T) {
	prog := &ir.Program{ID: "p", Steps: []ir.Step{{ID: "a", Kind: ir.KindShell}, {ID: "b", Kind: ir.KindTool}}}
	var out bytes.Buffer
	v := newLiveView(&out, func() (int, int) { return 30, 10 })
	t0 := time.Unix(0, 0)
	v.now = func() time.Time { return t0 }
	v.Observe(prog, vm.Event{Kind: vm.PlanStart, Steps: 2})
	v.Observe(prog, vm.Event{Kind: vm.PlanStepStart, StepID: "a", Attempt: 1})
	v.mu.Lock()
	v.redraw()
	v.mu.Unlock()
	v.Note("planc run: protection of plan files is off: it needs Linux")
	v.Observe(prog, vm.Event{Kind: vm.PlanStep, StepID: "a", Attempt: 1, Status: vm.StatusSuccess, Final: true})
	v.Observe(prog, vm.Event{Kind: vm.PlanStepStart, StepID: "b", Attempt: 1})
	v.Observe(prog, vm.Event{Kind: vm.PlanStep, StepID: "b", Attempt: 1, Status: vm.StatusSuccess, Final: true})
	v.Observe(prog, vm.Event{Kind: vm.PlanEnd, PlanID: "p", Outcome: vm.Completed, Succeeded: 2})
	v.Stop()
	s := &testkit.Screen{Cols: 30}
	s.Feed(t, strings.ReplaceAll(out.String(), "\n", "\r\n")) // as a terminal's ONLCR does
	want := []string{
		"planc run: protection of plan",
		"files is off: it needs Linux",
		`plan "p" completed: 2 steps,…`,
		"  a     shell    success 0.0s",
		"  b     tool     success 0.0s",
	}
	if diff := cmp.Diff(want, s.Text()); diff != "" || s.Wrapped > 0 {
		t.Errorf("%d lines wrapped; the screen (-want +got):\n%s\nraw: %q", s.Wrapped, diff, out.String())
	}
}

// TestProgressReused: a step a redrive reuses (S26) is shown as reused,
// not as a success of this run, in both views.
func TestProgressReused(t *testing.T) {
	prog := &ir.Program{ID: "p", Steps: []ir.Step{
		{ID: "build", Kind: ir.KindShell},
		{ID: "test", Kind: ir.KindShell},
	}}
	events := []vm.Event{
		{Kind: vm.PlanStart, Steps: 2},
		{Kind: vm.PlanStep, StepID: "build", Attempt: 1, Status: vm.StatusSuccess, Reused: true, Final: true},
		{Kind: vm.PlanStepStart, StepID: "test", StepKind: ir.KindShell, Attempt: 2},
		{Kind: vm.PlanStep, StepID: "test", Attempt: 2, Status: vm.StatusSuccess, Duration: time.Second, Final: true},
	}
	t0 := time.Unix(0, 0)
	var buf bytes.Buffer
	lv := newLinesView(&buf, nil)
	lv.now = func() time.Time { return t0 }
	for _, e := range events {
		lv.Observe(prog, e)
	}
	want := "   0.00s  plan     \"p\": 2 steps\n" +
		"   0.00s  reused   build: its success in an earlier run is kept\n" +
		"   0.00s  start    test (shell, attempt 2)\n" +
		"   0.00s  success  test 1.0s\n"
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("lines view (-want +got):\n%s", diff)
	}

	v := newLiveView(nil, nil)
	v.t.init(prog)
	for _, e := range events {
		v.t.apply(e, t0)
	}
	got := v.lines(t0, 79, 30)
	wantRows := []string{
		`plan "p": 2 steps, 2 settled`,
		"  build  shell    success, reused from an earlier run",
		"  test   shell    success 1.0s (attempt 2)",
	}
	if diff := cmp.Diff(wantRows, got); diff != "" {
		t.Errorf("live view (-want +got):\n%s", diff)
	}
}
