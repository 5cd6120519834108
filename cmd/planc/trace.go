package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/planc/planc/host/session"
	"github.com/planc/planc/internal/cliflag"
	"github.com/planc/planc/internal/sessionfmt"
	"github.com/planc/planc/internal/termtext"
	"github.com/planc/planc/tracefile"
	"github.com/planc/planc/tracefile/traceview"
)

// traceCommand is planc trace (docs/cli.md).
var traceCommand = &command{
	name:    "trace",
	summary: "read a session afterwards: step rows, the session tree, kept outputs and reports, the sessions, a run drawn as a graph or an HTML timeline",
	usage: `usage: planc trace steps|show [SESSION] [--format text|json]
       planc trace logs [SESSION] STEP [--plan N] [--attempt K]
       planc trace report [SESSION] [--plan N] [--format json]
       planc trace list [--format text|json]
       planc trace prune --older-than D
       planc trace graph [SESSION] [--plan N] [--format dot|mermaid]
       planc trace html [SESSION] [--plan N] [-o FILE]

SESSION is a session directory, the trace.jsonl in one, or a session id
under .planc/sessions (as planc trace list shows it); without it, the
newest session under .planc/sessions is read. The sessions are the
project's: those of the current directory, or of the nearest parent
holding a .planc/ (where planc run keeps them).

  steps   one row per step attempt of every plan in the trace: PLAN,
          STEP, ATTEMPT (- for a step settled without dispatch), STATUS
          (success, failed, skipped; running or unsettled for a dispatch
          without its plan_step line; success (reused) for a step a
          redrive kept), DURATION and ERROR; a redrive's rows say so in
          PLAN, as in build (plan-1, redrive 1)
  show    the session (id, capsule, started, exit status), each plan with
          its outcome, counts and step attempts, cancelled tasks, then
          Delegations: each sub-capsule with its step, outcome and reason,
          followed into delegations/<id>/ and shown the same way, indented
  logs    the kept output of a step: every dispatched attempt, each
          under a heading (==> STEP, attempt K: STATUS after DURATION <==),
          or only attempt K's, exactly as kept
  report  the kept report of a plan, exactly as it was returned
  list    the sessions under .planc/sessions, newest first: one row per
          plan with its outcome (completed, failed, canceled, running,
          or unfinished: planc died), redrives and steps
  prune   remove the sessions under .planc/sessions that started more
          than D ago (--older-than 7d, 36h), but never one a planc is
          running a plan of; one line per session removed

  graph   the plan as it ran, for Graphviz dot (the default) or Mermaid:
          the plan's graph with each step filled by its status (green
          success, red failed, grey skipped, white not run), its time and
          attempts on its label, a reused step with a double border, and
          the tool lane as the run dispatched it (dashed grey edges)
  html    one self-contained HTML page of the plan's run: its summary,
          then a timeline with one row per step, grouped by kind, one bar
          per attempt, coloured by status; hover a bar for its attempt,
          open a row for its error and the first lines of its output

flags:
  --format text|json  steps: one JSON object a line; show: one object;
                      list: one JSON object a session a line; report:
                      the report is JSON either way
  --format dot|mermaid  graph: Graphviz (the default) or Mermaid
  -o FILE             html: write the page to FILE (default: standard output)
  --plan N            the plan of the session (default: its last)
  --attempt K         logs: only attempt K, with no heading

A trace cut short, torn lines (a writer that died mid-write), lines that
are not JSON, unknown events and missing delegation directories do not
stop any view: what is there is shown, with one line on standard error
for each line skipped (and for show, a notes section for the rest).

exit status: 0 shown; 2 usage error, no session at the path, or (logs,
report) an unknown plan, step or attempt, or nothing kept to show
`,
	run: runTrace,
}

// traceViews are planc trace's views.
var traceViews = []string{"steps", "show", "logs", "report", "list", "prune", "graph", "html"}

// traceFlagViews says which views take each flag.
var traceFlagViews = map[string][]string{
	"format":     {"steps", "show", "list", "report", "graph"},
	"plan":       {"logs", "report", "graph", "html"},
	"o":          {"html"},
	"attempt":    {"logs"},
	"older-than": {"prune"},
}

// traceArgs are planc trace's parsed flags and arguments.
type traceArgs struct {
	view    string
	pos     []string // the arguments after the view
	json    bool
	format  string // the --format given; "" when none
	out     string // html: -o FILE
	plan    int    // 0: the session's last
	attempt int    // 0: every attempt
	// olderThan is prune's --older-than, as given.
	olderThan string
}

// A run whose planc died is told from one still running by its plan's
// lock (S27): the trace views show its unsettled attempts as unsettled,
// not running.
func init() { tracefile.PlanHeld = session.PlanHeld }

// runTrace implements planc trace.
func runTrace(e *env, c *command, args []string) int {
	a, status, ok := parseTraceArgs(e, c, args)
	switch {
	case !ok:
		return status
	case a.view == "list":
		return traceList(e, c, a)
	case a.view == "prune":
		return tracePrune(e, c, a)
	case a.view == "logs" && len(a.pos) == 0:
		return e.usageError(c, "name the step: planc trace logs [SESSION] STEP")
	case a.view == "logs" && len(a.pos) > 2:
		return e.usageError(c, "give a session and a step at most: planc trace logs [SESSION] STEP")
	case a.view == "logs":
		return traceLogs(e, a)
	case len(a.pos) > 1:
		return e.usageError(c, "give at most one trace file or session directory")
	}
	path, err := traceview.Locate(a.pos)
	if err != nil {
		return e.traceFailed(err)
	}
	if a.view == "steps" || a.view == "show" {
		s, err := traceview.Open(path, a.view)
		if err != nil {
			return e.traceFailed(err)
		}
		var out bytes.Buffer
		if err := traceview.Render(&out, s, a.view, a.json); err != nil {
			return e.writeFailed(err)
		}
		if status := e.writeView(out.Bytes(), a.json); status != exitOK {
			return status
		}
		e.traceNotes(traceview.Notes(s, a.view))
		return exitOK
	}
	s, n, ok := e.openTracePlan(path, a.plan)
	if !ok {
		return exitUsage
	}
	if a.view == "report" {
		report, note, err := s.Report(n)
		if err != nil {
			return e.traceFailed(err)
		}
		if note != "" {
			e.traceNotes([]string{note})
		}
		return e.writeView(report, true)
	}
	var out bytes.Buffer
	if err := traceview.WritePicture(&out, s, n, a.view, a.format); err != nil {
		return e.traceFailed(err)
	}
	if a.out == "" {
		return e.writeOut(out.Bytes())
	}
	if err := os.WriteFile(a.out, out.Bytes(), 0o644); err != nil {
		fmt.Fprintf(e.stderr, "planc trace: %v\n", err)
		return exitFail
	}
	return exitOK
}

// parseTraceArgs parses planc trace's arguments, refusing a flag the view
// does not take.
func parseTraceArgs(e *env, c *command, args []string) (traceArgs, int, bool) {
	fs := newFlagSet(c)
	format := cliflag.NewChoice("", "text", "json")
	if len(args) > 0 && args[0] == "graph" {
		format.Choices = []string{"dot", "mermaid"}
	}
	fs.Var(format, "format", "")
	out := fs.String("o", "", "")
	plan := fs.Int("plan", 0, "")
	attempt := fs.Int("attempt", 0, "")
	olderThan := fs.String("older-than", "", "")
	pos, status, ok := e.parseArgs(c, fs, args)
	if !ok {
		return traceArgs{}, status, false
	}
	if len(pos) == 0 {
		return traceArgs{}, e.usageError(c, "say which view: %s", cliflag.OrList(traceViews)), false
	}
	a := traceArgs{view: pos[0], pos: pos[1:], json: format.Value == "json", plan: *plan, attempt: *attempt,
		format: format.Value, out: *out, olderThan: *olderThan}
	if !slices.Contains(traceViews, a.view) {
		return a, e.usageError(c, "%s", cliflag.Unknown("view", a.view, traceViews)), false
	}
	bad := cliflag.Misplaced(fs, "planc trace", a.view, traceFlagViews)
	switch {
	case bad != "":
		return a, e.usageError(c, "%s", bad), false
	case a.view == "graph" && (a.format == "text" || a.format == "json"):
		return a, e.usageError(c, "--format for planc trace graph is dot or mermaid, not %s", a.format), false
	case a.view != "graph" && (a.format == "dot" || a.format == "mermaid"):
		return a, e.usageError(c, "--format %s is for planc trace graph; planc trace %s takes text or json", a.format, a.view), false
	case *plan < 0 || cliflag.IsSet(fs, "plan") && *plan == 0:
		return a, e.usageError(c, "--plan counts from 1: plans/plan-1.json is plan 1"), false
	case *attempt < 0 || cliflag.IsSet(fs, "attempt") && *attempt == 0:
		return a, e.usageError(c, "--attempt counts from 1"), false
	}
	return a, exitOK, true
}

// traceFailed says on standard error why planc trace cannot show what
// was asked, and returns exit status 2.
func (e *env) traceFailed(err error) int {
	fmt.Fprintf(e.stderr, "planc trace: %v\n", err)
	return exitUsage
}

// writeOut writes b on standard output.
func (e *env) writeOut(b []byte) int {
	if _, err := e.stdout.Write(b); err != nil {
		return e.writeFailed(err)
	}
	return exitOK
}

// writeView writes a view on standard output: JSON (isJSON) through
// e.shown, as planc run's report goes out; the text views escape what
// they show themselves.
func (e *env) writeView(b []byte, isJSON bool) int {
	if !isJSON {
		return e.writeOut(b)
	}
	w, flush := e.shown(true)
	if _, err := w.Write(b); err != nil {
		return e.writeFailed(err)
	}
	if err := flush(); err != nil {
		return e.writeFailed(err)
	}
	return exitOK
}

// shown is standard output for what a plan, a step or a server wrote: as
// it is when piped or redirected; on a terminal escaped, so that the
// terminal shows it without acting on it — JSON (asJSON) with its C1 and
// bidirectional controls and line separators written \uXXXX (the same
// JSON), text through a termtext.SafeWriter. Call flush when done.
func (e *env) shown(asJSON bool) (w io.Writer, flush func() error) {
	if asJSON {
		w = termtext.JSONForTerminal(e.stdout)
	} else {
		w = termtext.ForTerminal(e.stdout)
	}
	if sw, ok := w.(*termtext.SafeWriter); ok {
		return sw, sw.Flush
	}
	return w, func() error { return nil }
}

// traceNotes writes each note about a skipped line on standard error.
func (e *env) traceNotes(notes []string) {
	for _, n := range notes {
		fmt.Fprintf(e.stderr, "planc trace: note: %s\n", n)
	}
}

// openTracePlan opens the session at path, without its delegations, and
// picks the plan: plan, or the session's last (traceview.OpenPlan),
// writing the notes of the lines skipped on standard error.
func (e *env) openTracePlan(path string, plan int) (*tracefile.Session, int, bool) {
	s, n, err := traceview.OpenPlan(path, plan)
	if s != nil {
		e.traceNotes(traceview.SkippedLines(s))
	}
	if err != nil {
		e.traceFailed(err)
		return nil, 0, false
	}
	return s, n, true
}

// traceLogs implements planc trace logs [SESSION] STEP.
func traceLogs(e *env, a traceArgs) int {
	step := a.pos[len(a.pos)-1]
	path, err := traceview.Locate(a.pos[:len(a.pos)-1])
	if err != nil {
		return e.traceFailed(err)
	}
	s, n, ok := e.openTracePlan(path, a.plan)
	if !ok {
		return exitUsage
	}
	l, err := s.StepLogs(n, step, a.plan == 0)
	if err != nil {
		if fi, serr := os.Stat(step); len(a.pos) == 1 && serr == nil && (fi.IsDir() || fi.Name() == sessionfmt.TraceFile) {
			err = fmt.Errorf("%w (%s is a path: to read that session, name the step after it)", err, step)
		}
		return e.traceFailed(err)
	}
	out, flush := e.shown(false)
	defer flush()
	err = traceview.WriteLogs(out, l, step, n, a.attempt)
	if we, ok := errors.AsType[*tracefile.WriteError](err); ok {
		return e.writeFailed(we.Err)
	} else if err != nil {
		return e.traceFailed(err)
	}
	return exitOK
}

// traceList implements planc trace list.
func traceList(e *env, c *command, a traceArgs) int {
	if len(a.pos) > 0 {
		return e.usageError(c, "planc trace list takes no arguments: it lists the project's sessions, under %s of the current directory or the nearest parent holding a .planc/", session.DefaultSessionsDir)
	}
	home := traceview.FindHome()
	list, err := traceview.ListSessions(home.Dir)
	if err != nil {
		return e.traceFailed(err)
	}
	e.traceNotes(traceview.MarkRunning(list, session.PlanHeld))
	var out bytes.Buffer
	if err := traceview.RenderList(&out, list, a.json); err != nil {
		return e.writeFailed(err)
	}
	if status := e.writeView(out.Bytes(), a.json); status != exitOK {
		return status
	}
	if len(list) == 0 {
		fmt.Fprintf(e.stderr, "planc trace: no sessions under %s\n", home.Where())
	}
	for _, s := range list {
		e.traceNotes(s.Notes())
	}
	return exitOK
}

// tracePrune implements planc trace prune --older-than D: it removes the
// sessions under .planc/sessions whose id says they started more than D
// ago, but never one a planc is running a plan of (its plan lock held,
// S27): that one is kept, with a line on standard error. It prints one
// line per session removed.
func tracePrune(e *env, c *command, a traceArgs) int {
	if len(a.pos) > 0 {
		return e.usageError(c, "planc trace prune takes no session: it prunes the project's sessions, under %s of the current directory or the nearest parent holding a .planc/", session.DefaultSessionsDir)
	}
	if a.olderThan == "" {
		return e.usageError(c, "planc trace prune needs --older-than D (7d, 36h): the age of the sessions to remove")
	}
	age, err := traceview.ParseAge(a.olderThan)
	if err != nil {
		return e.usageError(c, "%v", err)
	}
	pruned, err := session.Prune(traceview.FindHome().Dir, time.Now().Add(-age))
	if err != nil {
		return e.traceFailed(fmt.Errorf("no sessions to prune: %w", err))
	}
	for _, p := range pruned {
		switch {
		case p.Held != 0:
			fmt.Fprintf(e.stderr, "planc trace: kept %s: a planc is running its plan %d\n", p.Name, p.Held)
		case p.Err != nil:
			e.traceFailed(p.Err)
		default:
			fmt.Fprintf(e.stdout, "removed %s\n", p.Dir)
		}
	}
	return exitOK
}
