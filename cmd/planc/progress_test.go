package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mattn/go-runewidth"

	"github.com/planc/planc/ir"
	"github.com/planc/planc/vm"

	"github.com/planc/planc/internal/testkit"
)

// progressPlan exercises every line of the lines view without a shell:
// a success, a condition's skip, a retry, a fail-stop, and steps that
// never run after it.
const progressPlan = `{"id": "tools", "steps": [
  {"id": "list", "tool": "repo-files", "input": {"glob": "src/**/*.go"}},
  {"id": "never", "tool": "notes", "depends_on": ["list"], "if": "$list.output == 'nothing'", "input": {"body": "x"}},
  {"id": "read", "tool": "read-file", "retries": 1, "input": {"path": "missing.txt"}},
  {"id": "note", "tool": "notes", "depends_on": ["read"], "input": {"body": "x"}},
  {"id": "after", "tool": "notes", "depends_on": ["never"], "input": {"body": "x"}}
]}`

// times matches the lines view's times: the leading time since the start
// and a step's duration.
var (
	leadTime = regexp.MustCompile(`(?m)^ *\d+\.\d\ds  `)
	stepTime = regexp.MustCompile(` \d+\.\ds\b| \d+m\d\ds\b`)
)

// normaliseTimes replaces the times of lines-view output with fixed ones.
func normaliseTimes(s string) string {
	s = leadTime.ReplaceAllString(s, "   0.00s  ")
	return stepTime.ReplaceAllString(s, " 0.0s")
}

// TestProgressLinesGolden: planc run --progress=lines prints one plain
// line per step event, exactly as testdata/progress/lines.txt has it
// (times normalised); forcing the live view into a pipe prints the same.
func TestProgressLinesGolden(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "plan.json", progressPlan, "src/a.go", "")
	golden := filepath.Join("testdata", "progress", "lines.txt")
	for _, flag := range []string{"--progress=lines", "--progress", "--progress=tty"} {
		r := planc(t, dir, flag, "plan.json")
		if r.code != 1 {
			t.Fatalf("%s: exit %d, want 1: %s", flag, r.code, r.stderr)
		}
		if strings.ContainsRune(r.stderr, '\x1b') {
			t.Errorf("%s into a pipe wrote an escape sequence:\n%q", flag, r.stderr)
		}
		got := normaliseTimes(r.stderr)
		if *testkit.Update && flag == "--progress=lines" {
			if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", flag, diff)
		}
	}
}

// TestProgressOffInPipe: into a pipe nothing but the summary is shown
// unless asked, and --quiet or --progress=off keep it so.
func TestProgressOffInPipe(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "plan.json", progressPlan, "src/a.go", "")
	want := "Plan 'tools': 5 steps, 1 succeeded, 1 failed, 1 skipped\n"
	for _, args := range [][]string{{}, {"--quiet"}, {"-q"}, {"--progress=off"}, {"--progress=off", "--quiet"}} {
		r := planc(t, dir, append(args, "plan.json")...)
		if r.code != 1 || r.stderr != want {
			t.Errorf("%q: exit %d, stderr %q; want 1 and only the summary %q", args, r.code, r.stderr, want)
		}
	}
}

// TestProgressLinesRefused: a plan refused before any step ran gets one
// refused line after its diagnostics.
func TestProgressLinesRefused(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "plan.json", `{"id": "bad", "steps": [{"id": "a", "tool": "notes", "depends_on": ["b"], "input": {"body": "x"}}]}`)
	r := planc(t, dir, "--progress=lines", "plan.json")
	last := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if r.code != 2 || !strings.HasSuffix(last[len(last)-1], "  refused  plan.json: 1 error (above)") {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 2 and a last line \"refused  plan.json: 1 error (above)\"", r.code, r.stderr)
	}
}

// TestProgressFlag: --progress's values.
func TestProgressFlag(t *testing.T) {
	for in, want := range map[string]progressMode{"true": progressTTY, "tty": progressTTY, "lines": progressLines, "off": progressOff, "false": progressOff} {
		var f progressFlag
		if err := f.Set(in); err != nil || f.mode != want {
			t.Errorf("Set(%q): mode %d, err %v; want %d", in, f.mode, err, want)
		}
	}
	var f progressFlag
	if err := f.Set("line"); err == nil || !strings.Contains(err.Error(), `did you mean "lines"?`) {
		t.Errorf("Set(\"line\") = %v, want a did-you-mean", err)
	}
}

// TestNewProgressOffTerminal: off a terminal, auto is off and both tty
// and lines give the lines view; off is nothing.
func TestNewProgressOffTerminal(t *testing.T) {
	var b bytes.Buffer
	for mode, want := range map[progressMode]string{progressAuto: "<nil>", progressOff: "<nil>", progressTTY: "*main.linesView", progressLines: "*main.linesView"} {
		got := "<nil>"
		if v := newProgress(&b, mode, "xterm"); v != nil {
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
		return "*main.linesView"
	case *liveView:
		return "*main.liveView"
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
	v.observe(prog, vm.Event{Kind: vm.PlanStart, Steps: 2})
	v.observe(prog, vm.Event{Kind: vm.PlanStepStart, StepID: "a", Attempt: 1})
	v.mu.Lock()
	v.redraw()
	v.mu.Unlock()
	v.note("planc run: protection of plan files is off: it needs Linux")
	v.observe(prog, vm.Event{Kind: vm.PlanStep, StepID: "a", Attempt: 1, Status: vm.StatusSuccess, Final: true})
	v.observe(prog, vm.Event{Kind: vm.PlanStepStart, StepID: "b", Attempt: 1})
	v.observe(prog, vm.Event{Kind: vm.PlanStep, StepID: "b", Attempt: 1, Status: vm.StatusSuccess, Final: true})
	v.observe(prog, vm.Event{Kind: vm.PlanEnd, PlanID: "p", Outcome: vm.Completed, Succeeded: 2})
	v.stop()
	s := &screen{cols: 30}
	s.feed(t, strings.ReplaceAll(out.String(), "\n", "\r\n")) // as a terminal's ONLCR does
	want := []string{
		"planc run: protection of plan",
		"files is off: it needs Linux",
		`plan "p" completed: 2 steps,…`,
		"  a     shell    success 0.0s",
		"  b     tool     success 0.0s",
	}
	if diff := cmp.Diff(want, s.text()); diff != "" || s.wrapped > 0 {
		t.Errorf("%d lines wrapped; the screen (-want +got):\n%s\nraw: %q", s.wrapped, diff, out.String())
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
		lv.observe(prog, e)
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
