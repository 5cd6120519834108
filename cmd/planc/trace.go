package main

import (
	"bytes"
	"fmt"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/host/session"
	"github.com/planc/planc/tracefile"
)

// traceCommand is planc trace (docs/cli.md).
var traceCommand = &command{
	name:    "trace",
	summary: "read a session's trace: its step rows, or the whole session tree",
	usage: `usage: planc trace steps|show [TRACE.jsonl | SESSION_DIR]

Reads a session's trace.jsonl, given as the file or as the session
directory that holds it. Without a path, the most recent session under
.planc/sessions is read.

  steps   one row per step attempt of every plan in the trace: PLAN,
          STEP, ATTEMPT (- for a step settled without dispatch), STATUS
          (success, failed, skipped; running or unsettled for a dispatch
          without its plan_step line), DURATION and ERROR
  show    the session (id, capsule, started, exit status), each plan with
          its outcome, counts and step attempts, cancelled tasks, then
          Delegations: each sub-capsule with its step, outcome and reason,
          followed into delegations/<id>/ and shown the same way, indented

A trace cut short, torn lines (a writer that died mid-write), lines that
are not JSON, unknown events and missing delegation directories do not
stop either view: what is there is shown, with notes (on standard error
for steps; for show, one line on standard error for each line skipped and
a notes section for the rest).

exit status: 0 shown, 2 usage error, or no session at the path
`,
	run: runTrace,
}

// runTrace implements planc trace.
func runTrace(e *env, c *command, args []string) int {
	fs := newFlagSet(c)
	pos, status, ok := e.parseArgs(c, fs, args)
	if !ok {
		return status
	}
	if len(pos) == 0 {
		return e.usageError(c, "say steps or show")
	}
	view, rest := pos[0], pos[1:]
	if view != "steps" && view != "show" {
		msg := fmt.Sprintf("unknown view %q; want steps or show", view)
		if s := ast.Suggest(view, []string{"steps", "show"}); s != "" {
			msg = fmt.Sprintf("unknown view %q; did you mean %q?", view, s)
		}
		return e.usageError(c, "%s", msg)
	}
	if len(rest) > 1 {
		return e.usageError(c, "give at most one trace file or session directory")
	}
	path := ""
	if len(rest) == 1 {
		path = rest[0]
	} else {
		latest, err := tracefile.Latest(session.DefaultSessionsDir)
		if err != nil {
			fmt.Fprintf(e.stderr, "planc trace: %v; name a trace file or a session directory\n", err)
			return exitUsage
		}
		path = latest
	}
	s, err := tracefile.Open(path)
	if err != nil {
		fmt.Fprintf(e.stderr, "planc trace: %v\n", err)
		return exitUsage
	}
	var out bytes.Buffer
	if view == "steps" {
		err = tracefile.WriteSteps(&out, s)
	} else {
		err = tracefile.WriteShow(&out, s)
	}
	if err == nil {
		_, err = e.stdout.Write(out.Bytes())
	}
	if err != nil {
		return e.writeFailed(err)
	}
	if view == "steps" {
		for _, n := range s.Notes {
			fmt.Fprintf(e.stderr, "planc trace: note: %s\n", n)
		}
	} else {
		for _, n := range tracefile.SkippedLines(s) {
			fmt.Fprintf(e.stderr, "planc trace: note: %s\n", n)
		}
	}
	return exitOK
}
