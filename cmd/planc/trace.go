package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/internal/sessionfmt"
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

// runTrace implements planc trace.
func runTrace(e *env, c *command, args []string) int {
	a, status, ok := parseTraceArgs(e, c, args)
	if !ok {
		return status
	}
	switch a.view {
	case "logs":
		return traceLogs(e, c, a)
	case "report":
		return traceReport(e, c, a)
	case "list":
		return traceList(e, c, a)
	case "prune":
		return tracePrune(e, c, a)
	case "graph", "html":
		return tracePicture(e, c, a)
	}
	if len(a.pos) > 1 {
		return e.usageError(c, "give at most one trace file or session directory")
	}
	path, status, ok := tracePath(e, a.pos)
	if !ok {
		return status
	}
	// steps shows the session's own plans only: its delegations are not
	// read.
	open := tracefile.Open
	if a.view == "steps" {
		open = tracefile.OpenTop
	}
	s, err := open(path)
	if err != nil {
		fmt.Fprintf(e.stderr, "planc trace: %v\n", err)
		return exitUsage
	}
	var out bytes.Buffer
	switch {
	case a.view == "steps" && a.json:
		err = traceview.WriteStepsJSON(&out, s)
	case a.view == "steps":
		err = traceview.WriteSteps(&out, s)
	case a.json:
		err = traceview.WriteShowJSON(&out, s)
	default:
		err = traceview.WriteShow(&out, s)
	}
	if err == nil {
		_, err = e.stdout.Write(out.Bytes())
	}
	if err != nil {
		return e.writeFailed(err)
	}
	if a.view == "steps" {
		for _, n := range s.Notes {
			fmt.Fprintf(e.stderr, "planc trace: note: %s\n", n)
		}
	} else {
		traceNotes(e, traceview.SkippedLines(s))
	}
	return exitOK
}

// parseTraceArgs parses planc trace's arguments, refusing a flag the view
// does not take.
func parseTraceArgs(e *env, c *command, args []string) (traceArgs, int, bool) {
	fs := newFlagSet(c)
	format := &choiceFlag{value: "", choices: []string{"text", "json"}}
	if len(args) > 0 && args[0] == "graph" {
		format.choices = []string{"dot", "mermaid"}
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
		return traceArgs{}, e.usageError(c, "say which view: %s", orList(traceViews)), false
	}
	a := traceArgs{view: pos[0], pos: pos[1:], json: format.value == "json", plan: *plan, attempt: *attempt,
		format: format.value, out: *out, olderThan: *olderThan}
	if !slices.Contains(traceViews, a.view) {
		msg := fmt.Sprintf("unknown view %q; want %s", a.view, orList(traceViews))
		if s := ast.Suggest(a.view, traceViews); s != "" {
			msg = fmt.Sprintf("unknown view %q; did you mean %q?", a.view, s)
		}
		return a, e.usageError(c, "%s", msg), false
	}
	var bad string
	fs.Visit(func(f *flag.Flag) {
		if views := traceFlagViews[f.Name]; bad == "" && !slices.Contains(views, a.view) {
			bad = fmt.Sprintf("--%s is for planc trace %s, not %s", f.Name, orList(views), a.view)
		}
	})
	switch {
	case bad != "":
		return a, e.usageError(c, "%s", bad), false
	case a.view == "graph" && (a.format == "text" || a.format == "json"):
		return a, e.usageError(c, "--format for planc trace graph is dot or mermaid, not %s", a.format), false
	case a.view != "graph" && (a.format == "dot" || a.format == "mermaid"):
		return a, e.usageError(c, "--format %s is for planc trace graph; planc trace %s takes text or json", a.format, a.view), false
	case *plan < 0 || isSet(fs, "plan") && *plan == 0:
		return a, e.usageError(c, "--plan counts from 1: plans/plan-1.json is plan 1"), false
	case *attempt < 0 || isSet(fs, "attempt") && *attempt == 0:
		return a, e.usageError(c, "--attempt counts from 1"), false
	}
	return a, exitOK, true
}

// isSet reports whether the flag name was given.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// tracePath returns the session path pos names (a path, or a session id
// under .planc/sessions as planc trace list shows it), or the newest
// session under .planc/sessions when it names none.
func tracePath(e *env, pos []string) (string, int, bool) {
	if len(pos) == 1 {
		arg := pos[0]
		if _, err := os.Stat(arg); errors.Is(err, fs.ErrNotExist) {
			byID := filepath.Join(findTraceHome().dir, arg)
			if fi, err := os.Stat(byID); err == nil && fi.IsDir() && filepath.Base(arg) == arg {
				return byID, exitOK, true
			}
			fmt.Fprintf(e.stderr, "planc trace: no session at %s; name a session directory, its %s, or a session id that planc trace list shows\n", arg, sessionfmt.TraceFile)
			return "", exitUsage, false
		}
		return arg, exitOK, true
	}
	home := findTraceHome()
	if _, err := os.Stat(home.dir); errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(e.stderr, "planc trace: no sessions: there is no %s; planc run makes one at the project's root, or name a session directory elsewhere\n", home.where())
		return "", exitUsage, false
	}
	latest, err := tracefile.Latest(home.dir)
	if err != nil {
		fmt.Fprintf(e.stderr, "planc trace: %v; name a trace file or a session directory\n", err)
		return "", exitUsage, false
	}
	return latest, exitOK, true
}

// traceNotes writes each note about a skipped line on standard error.
func traceNotes(e *env, notes []string) {
	for _, n := range notes {
		fmt.Fprintf(e.stderr, "planc trace: note: %s\n", n)
	}
}
