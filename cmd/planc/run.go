package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/diag"
	"github.com/planc/planc/graph"
	"github.com/planc/planc/host"
	"github.com/planc/planc/host/capenv"
	"github.com/planc/planc/host/session"
	"github.com/planc/planc/internal/interrupt"
	"github.com/planc/planc/internal/progress"
	"github.com/planc/planc/internal/termtext"
	"github.com/planc/planc/ir"
	"github.com/planc/planc/tracefile"
)

// exitCanceled is run's exit status for a cancelled plan.
const exitCanceled = int(session.ExitCanceled)

// abortGrace is how long a second SIGINT waits for the killed plan to wind
// down before planc exits regardless.
const abortGrace = 3 * time.Second

// runCommand is planc run (docs/cli.md).
var runCommand = &command{
	name:    "run",
	summary: "run a plan: session directory, trace, shell steps in a cgroup scope",
	usage: `usage: planc run [--capsule FILE] [--roost DIR] [--session DIR] [--workdir DIR] [--max-parallel N] [--shell-timeout D] [--progress[=MODE]] [--quiet] [--dry-run] [--verbose] PLAN
       planc run --resume [SESSION] [--plan N] [--capsule FILE] [flags as above]

Validates PLAN (a path, or - for standard input), writes it into the
session's runtime directory as plans/plan-<n>.json, reads it back from
there, runs it, and prints the report as JSON on standard output. When the
plan does not complete, its summary line goes to standard error. A refused
plan creates nothing: no session directory, no plan file, no trace line.
SIGINT or SIGTERM cancels the plan; a second one ends it at once. On Linux,
a plan with shell or capsule steps needs a delegated cgroup v2 scope, and
is refused with E-RUN-012 without one, which says how to get one
(docs/running.md explains it).

With --resume, redrives a plan that did not complete (it failed, was
cancelled, or planc died while it ran) in its own session: steps that
succeeded are reused with their recorded outputs, every other step runs
again (docs/resume.md). SESSION is a session directory (or a session id
under .planc/sessions/; default: the newest there); the plan is plans/
plan-<N>.json (default: the session's last plan), held to the SHA-256 its
first run recorded. Give the capsule (and flags) the plan first ran with:
the plan is checked again against it. A completed plan, a plan another
planc is running, and a changed plan file are refused (exit 2).

flags:
  --capsule FILE       the capsule manifest (default: .planc/capsule.json in
                       the current directory or the nearest parent that has
                       one, else the embedded one: the built-in tools, no
                       shell binaries, nothing to spawn)
  --roost DIR          the roost capsule steps spawn sub-capsules from:
                       DIR/<namespace>/<name>/capsule.json (default ./roost);
                       k8s:NAMESPACE runs them as Pods on the kubeconfig's
                       cluster (docs/kubernetes.md)
  --session DIR        reuse the session directory DIR; the plan gets the
                       next number (default: a new session under
                       .planc/sessions/); with --resume, the session to
                       resume, as SESSION
  --workdir DIR        where steps run, tool paths start, the default roost
                       lies and the new session goes (DIR/.planc/sessions/);
                       default:
                       the project's root (the directory holding the
                       .planc/capsule.json found) when the capsule was
                       found, else the current directory
  --resume             redrive a plan of a session instead of running PLAN
  --plan N             with --resume: the plan to redrive, plans/plan-<N>.json
  --max-parallel N     run at most N shell and capsule steps at once
                       (default 0: no cap)
  --shell-timeout D    the bound of every shell step, e.g. 90s (default: the
                       manifest's capabilities.shell.timeout, else 10m)
  --progress[=MODE]    what standard error shows while the plan runs: tty
                       (the live view; bare --progress), lines (one line
                       per step event, for CI logs and pipes) or off
                       (default: tty on a terminal, else off; tty falls
                       back to lines off a terminal or when TERM=dumb)
  -q, --quiet          the same as --progress=off
  --dry-run            validate, then print the schedule the VM would follow
                       if every step succeeded (steps that start together,
                       the tool lane's order, conditions); run nothing and
                       write no session (exit 0, or 2 when refused). The
                       capsule's MCP servers are started to list their
                       tools, as planc check does, and ended
  --verbose            say on standard error which capsule is used

exit status: 0 the plan completed, 1 it did not complete, 2 it was refused
before any step ran (or a usage error), 3 it was cancelled
`,
	run: runRun,
}

// runRun implements planc run.
func runRun(e *env, c *command, args []string) int {
	interrupt.SurviveBrokenPipe()
	fs := newFlagSet(c)
	capsuleFlag := fs.String("capsule", "", "")
	verbose := fs.Bool("verbose", false, "")
	session := fs.String("session", "", "")
	roost := fs.String("roost", "", "")
	workdir := fs.String("workdir", "", "")
	pf := addPlanFlags(fs)
	progressOpt := &progress.Flag{}
	fs.Var(progressOpt, "progress", "")
	quiet := fs.Bool("quiet", false, "")
	fs.BoolVar(quiet, "q", false, "") // -q is --quiet
	dryRun := fs.Bool("dry-run", false, "")
	rf := addResumeFlags(fs)
	paths, status, ok := e.parseArgs(c, fs, args)
	switch {
	case !ok:
		return status
	case progress.ValueApart(args, paths):
		return e.usageError(c, "--progress takes its mode after \"=\", as in --progress=%s", paths[0])
	case rf.problem(fs, paths, *dryRun) != "":
		return e.usageError(c, "%s", rf.problem(fs, paths, *dryRun))
	case *rf.resume:
	case len(paths) != 1:
		return e.usageError(c, "give exactly one plan (a path, or - for standard input)")
	case *capsuleFlag == stdinName && paths[0] == stdinName:
		return e.usageError(c, "standard input (-) given more than once; name it once")
	case pf.problem() != "":
		return e.usageError(c, "%s", pf.problem())
	case *quiet && progressOpt.Mode != progress.Auto && progressOpt.Mode != progress.Off:
		return e.usageError(c, "%s and --quiet contradict each other; give one", progressOpt.Spelt())
	}
	mode := progressOpt.Mode
	if *quiet {
		mode = progress.Off
	}
	var view progress.View
	if !*dryRun {
		view = progress.New(e.stderr, mode, os.Getenv("TERM"))
	}
	if view != nil {
		defer view.Stop()
	}

	capsule, ok := e.capsuleArg("run", *capsuleFlag, *verbose)
	if !ok {
		return exitUsage
	}
	env := capsule.Env
	if err := host.AdmitFrom(env.Manifest(), env.Name()); err != nil {
		fmt.Fprintf(e.stderr, "planc run: %v\n", err)
		refused(view, err.Error())
		return exitUsage
	}
	workDir := capsule.WorkDir(*workdir)
	if workDir != "" {
		if fi, err := os.Stat(workDir); err != nil || !fi.IsDir() {
			msg := fmt.Sprintf("--workdir %s is not a directory; name an existing one", workDir)
			fmt.Fprintf(e.stderr, "planc run: %s\n", msg)
			refused(view, msg)
			return exitUsage
		}
		// The manifest's paths were found from here, not from workDir.
		env = capsule.RunEnv(env.Manifest(), true)
	}
	cfg := host.Config{Env: env, WorkDir: workDir, MaxParallel: *pf.maxParallel, ShellTimeout: *pf.shellTimeout}
	if !e.k8sRoost(c, *roost, &cfg) {
		return exitUsage
	}
	if *rf.resume {
		sessionArg := *session
		if len(paths) == 1 {
			sessionArg = paths[0]
		}
		return e.resume(c, view, sessionArg, *rf.plan, cfg)
	}
	src, err := capenv.ReadPlan(e.stdin, paths[0])
	if err != nil {
		fmt.Fprintf(e.stderr, "planc run: %v\n", err)
		return exitUsage
	}
	checkEnv := env
	if *dryRun {
		// A dry run refuses what the run would: the MCP servers' tools
		// are listed now, as planc check lists them, instead of once the
		// servers start in the plan's scope.
		if checkEnv, err = envFor(capsule, src.Src); err != nil {
			return e.mcpFailed("run", err)
		}
	}
	plan, ds := checkEnv.LoadFile(src)
	diag.Sort(ds)
	diag.WriteText(e.stderr, ds) // warnings too, as check prints them
	if plan == nil {
		refused(view, fmt.Sprintf("%s: %s (above)", src.Name, countErrors(ds)))
		return exitUsage
	}
	if *dryRun {
		// The schedule the VM would follow if every step succeeded
		// (graph.DryRun, semantics S17): nothing runs, no session.
		prog, err := ir.Lower(plan)
		var out bytes.Buffer
		if err == nil {
			err = graph.DryRun(&out, prog, *pf.maxParallel)
		}
		if err != nil {
			fmt.Fprintf(e.stderr, "planc run: internal error: %v\n", err)
			return exitFail
		}
		return e.writeOut(out.Bytes())
	}

	cfg.Plan, cfg.SessionDir = plan, *session
	return e.runPlan(src, view, &cfg)
}

// runPlan runs cfg as planc run does, its notices and progress on
// standard error, and prints the outcome (finishRun); src names the plan
// in diagnostics.
func (e *env) runPlan(src *diag.File, view progress.View, cfg *host.Config) int {
	cfg.Notice = func(s string) { fmt.Fprintf(e.stderr, "planc run: %s\n", s) }
	if view != nil {
		cfg.Observe = view.Observe
		cfg.Notice = func(s string) { view.Note("planc run: " + s) }
	}
	// SIGINT or SIGTERM cancels the plan (S22), a second ends it at once,
	// killing the scope; if it has not wound down abortGrace later, planc
	// exits 3.
	abort := make(chan struct{})
	cfg.Abort = abort
	type outcome struct {
		res *host.Result
		err error
	}
	o := withSignals(e, abort, "planc run", "the plan", cfg.Notice, func(ctx context.Context) outcome {
		res, err := host.Run(ctx, *cfg)
		return outcome{res, err}
	})
	res, err := o.res, o.err
	if re, ok := errors.AsType[*host.RefusedError](err); ok {
		refused(view, re.Error())
	}
	return e.finishRun(src, res, err)
}

// finishRun prints the outcome of host.Run and returns the exit status:
// refusals on standard error (diagnostics as check prints them), the
// report on standard output, and the summary line when the plan did not
// complete.
func (e *env) finishRun(src *diag.File, res *host.Result, err error) int {
	var re *host.RefusedError
	switch {
	case errors.As(err, &re) && len(re.Diagnostics) > 0:
		ds := diag.Attach(&diag.File{Name: src.Name, Src: re.Source}, re.Diagnostics)
		diag.Sort(ds)
		diag.WriteText(e.stderr, onlyErrors(ds))
	case err != nil:
		fmt.Fprintf(e.stderr, "planc run: %v\n", err)
	}
	if res == nil {
		return int(host.ExitStatus(res, err))
	}
	b, werr := res.Report.JSON()
	if werr == nil {
		_, werr = termtext.JSONForTerminal(e.stdout).Write(b)
	}
	if werr != nil && !interrupt.BrokenPipe(werr) {
		return e.writeFailed(werr)
	} // a reader gone away: the report is kept in the session all the same
	if !res.Report.Completed {
		fmt.Fprintln(e.stderr, tracefile.Clean(res.Report.Summary)) // a plan's id may hold anything
	}
	return int(host.ExitStatus(res, err))
}

// onlyErrors drops warnings: they were printed before the run.
func onlyErrors(ds []diag.Diagnostic) []diag.Diagnostic {
	var out []diag.Diagnostic
	for _, d := range ds {
		if d.Severity == ast.Error {
			out = append(out, d)
		}
	}
	return out
}

// refused tells view, if any, that the plan was refused before any step
// ran; only the lines view prints it (diagnostics already say why).
func refused(view progress.View, why string) {
	if view != nil {
		view.Refused(why)
	}
}

// countErrors says how many of ds are errors: "1 error", "3 errors".
func countErrors(ds []diag.Diagnostic) string {
	n := len(onlyErrors(ds))
	if n == 1 {
		return "1 error"
	}
	return fmt.Sprintf("%d errors", n)
}
