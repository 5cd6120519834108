package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/host"
)

// exitCanceled is run's exit status for a cancelled plan (cli.md).
const exitCanceled = host.ExitCanceled

// abortGrace is how long a second SIGINT waits for the killed plan to wind
// down before planc exits regardless.
const abortGrace = 3 * time.Second

// runCommand is planc run (cli.md).
var runCommand = &command{
	name:    "run",
	summary: "run a plan: session directory, trace, shell steps in a cgroup scope",
	usage: `usage: planc run [--capsule FILE] [--roost DIR] [--session DIR] [--max-parallel N] [--shell-timeout D] [--progress] [--quiet] [--dry-run] PLAN

Validates PLAN (a path, or - for standard input), writes it into the
session's runtime directory as plans/plan-<n>.json, reads it back from
there, runs it, and prints the report as JSON on standard output. When the
plan does not complete, its summary line goes to standard error. SIGINT or
SIGTERM cancels the plan; a second one ends it at once.

flags:
  --capsule FILE       the capsule manifest (default: the embedded one, with
                       the built-in tools, no shell binaries, nothing to spawn)
  --roost DIR          the roost capsule steps spawn sub-capsules from:
                       DIR/<namespace>/<name>/capsule.json (default ./roost)
  --session DIR        reuse the session directory DIR; the plan gets the
                       next number (default: a new session under
                       .planc/sessions/)
  --max-parallel N     run at most N shell and capsule steps at once
                       (default 0: no cap)
  --shell-timeout D    the bound of every shell step, e.g. 90s (default: the
                       manifest's capabilities.shell.timeout, else 10m)
  --progress           show the live view even when standard error is not a
                       terminal
  --quiet              never show the live view
  --dry-run            validate, then print the schedule the VM would follow
                       if every step succeeded (steps that start together,
                       the tool lane's order, conditions); run nothing and
                       write no session (exit 0, or 2 when refused)

exit status: 0 the plan completed, 1 it did not complete, 2 it was refused
before any step ran (or a usage error), 3 it was cancelled
`,
	run: runRun,
}

// runRun implements planc run.
func runRun(e *env, c *command, args []string) int {
	fs := newFlagSet(c)
	capsule := fs.String("capsule", "", "")
	session := fs.String("session", "", "")
	roost := fs.String("roost", "", "")
	pf := addPlanFlags(fs)
	progress := fs.Bool("progress", false, "")
	quiet := fs.Bool("quiet", false, "")
	dryRun := fs.Bool("dry-run", false, "")
	paths, status, ok := e.parseArgs(c, fs, args)
	switch {
	case !ok:
		return status
	case len(paths) != 1:
		return e.usageError(c, "give exactly one plan (a path, or - for standard input)")
	case *capsule == stdinName && paths[0] == stdinName:
		return e.usageError(c, "standard input (-) given more than once; name it once")
	case pf.problem() != "":
		return e.usageError(c, "%s", pf.problem())
	case *progress && *quiet:
		return e.usageError(c, "--progress and --quiet contradict each other; give one")
	}

	m, manifestDir := host.DefaultManifest(), ""
	if *capsule != "" {
		var ok bool
		if m, _, ok = e.manifestArg("run", *capsule); !ok {
			return exitUsage
		}
		manifestDir = filepath.Dir(*capsule)
	}
	if err := host.Admit(m); err != nil {
		fmt.Fprintf(e.stderr, "planc run: %v\n", err)
		return exitUsage
	}
	src, plan, ds, err := e.loadPlan(paths[0], capsOf(m))
	if err != nil {
		fmt.Fprintf(e.stderr, "planc run: %v\n", err)
		return exitUsage
	}
	sortDiags(ds)
	writeText(e.stderr, ds) // warnings too, as check prints them
	if failing(ds, false) {
		return exitUsage
	}
	if *dryRun {
		return e.dryRun(plan, m, *pf.maxParallel)
	}

	cfg := host.Config{
		Plan:         src.src,
		Checked:      plan,
		Manifest:     m,
		ManifestDir:  manifestDir,
		SessionDir:   *session,
		Roost:        *roost,
		MaxParallel:  *pf.maxParallel,
		ShellTimeout: *pf.shellTimeout,
		Notice:       func(s string) { fmt.Fprintf(e.stderr, "planc run: %s\n", s) },
	}
	if view := newProgressView(e.stderr, *progress, *quiet); view != nil {
		cfg.Observe = view.observe
		defer view.stop()
	}
	res, err := runWithSignals(e, &cfg)
	return e.finishRun(src, res, err)
}

// runWithSignals runs the plan with SIGINT and SIGTERM wired to it: the
// first cancels the plan (S22), a second ends it at once, killing the
// scope; if the plan has not wound down abortGrace later, planc exits 3.
func runWithSignals(e *env, cfg *host.Config) (*host.Result, error) {
	abort := make(chan struct{})
	cfg.Abort = abort
	type outcome struct {
		res *host.Result
		err error
	}
	o := withSignals(e, abort, "planc run", "the plan", func(ctx context.Context) outcome {
		res, err := host.Run(ctx, *cfg)
		return outcome{res, err}
	})
	return o.res, o.err
}

// finishRun prints the outcome of host.Run and returns the exit status:
// refusals on standard error (diagnostics as check prints them), the
// report on standard output, and the summary line when the plan did not
// complete.
func (e *env) finishRun(src *source, res *host.Result, err error) int {
	var re *host.RefusedError
	switch {
	case errors.As(err, &re) && len(re.Diagnostics) > 0:
		ds := attach(&source{name: src.name, src: re.Source}, re.Diagnostics)
		sortDiags(ds)
		writeText(e.stderr, onlyErrors(ds))
	case err != nil:
		fmt.Fprintf(e.stderr, "planc run: %v\n", err)
	}
	if res == nil {
		return host.ExitStatus(res, err)
	}
	if werr := encodeJSON(e.stdout, res.Report); werr != nil {
		return e.writeFailed(werr)
	}
	if !res.Report.Completed {
		fmt.Fprintln(e.stderr, res.Report.Summary)
	}
	return host.ExitStatus(res, err)
}

// onlyErrors drops warnings: they were printed before the run.
func onlyErrors(ds []fileDiag) []fileDiag {
	var out []fileDiag
	for _, d := range ds {
		if d.Severity == ast.Error {
			out = append(out, d)
		}
	}
	return out
}
