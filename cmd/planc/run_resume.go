package main

import (
	"flag"
	"fmt"
	"path/filepath"

	"github.com/planc/planc/diag"
	"github.com/planc/planc/host"
	"github.com/planc/planc/host/capenv"
	"github.com/planc/planc/host/session"
	"github.com/planc/planc/internal/progress"
	"github.com/planc/planc/internal/sessionfmt"
)

// resumeFlags are planc run's --resume and --plan (docs/resume.md).
type resumeFlags struct {
	resume *bool
	plan   *int
}

// addResumeFlags defines --resume and --plan on fs.
func addResumeFlags(fs *flag.FlagSet) resumeFlags {
	return resumeFlags{resume: fs.Bool("resume", false, ""), plan: fs.Int("plan", 0, "")}
}

// problem returns the usage error of --resume and --plan with the
// positional arguments pos, or "".
func (f resumeFlags) problem(fs *flag.FlagSet, pos []string, dryRun bool) string {
	planSet, sessionSet := false, false
	fs.Visit(func(fl *flag.Flag) {
		planSet = planSet || fl.Name == "plan"
		sessionSet = sessionSet || fl.Name == "session"
	})
	switch {
	case !*f.resume && planSet:
		return "--plan goes with --resume, naming the plan of the session to redrive; to run a plan file, give its path alone"
	case !*f.resume:
		return ""
	case dryRun:
		return "--resume and --dry-run contradict each other; give one"
	case planSet && *f.plan < 1:
		return fmt.Sprintf("--plan %d is not a plan number; plans are numbered from 1", *f.plan)
	case len(pos) > 1:
		return "--resume takes at most one session (a directory, or a session id under " + session.DefaultSessionsDir + ")"
	case len(pos) == 1 && capenv.IsPlanArg(pos[0]):
		return fmt.Sprintf("--resume redrives a plan that is already in a session, and takes no plan file (%s); name the session, or run the plan without --resume", pos[0])
	case len(pos) == 1 && sessionSet:
		return "give the session once: as SESSION or with --session"
	}
	return ""
}

// resume redrives plan (0: the last) of session sessionArg ("": the
// newest) with cfg (planc run --resume): it finds the session and the
// plan, says on standard error which it resumes, and runs it as planc run
// runs a plan.
func (e *env) resume(c *command, view progress.View, sessionArg string, plan int, cfg host.Config) int {
	fail := func(format string, args ...any) int {
		msg := fmt.Sprintf(format, args...)
		fmt.Fprintf(e.stderr, "planc %s: %s\n", c.name, msg)
		refused(view, msg)
		return exitUsage
	}
	dir, n, err := host.FindRedrive(cfg.WorkDir, sessionArg, plan)
	if err != nil {
		return fail("%v", err)
	}
	cfg.SessionDir, cfg.RedrivePlan = dir, n
	msg := fmt.Sprintf("planc %s: resuming plan %d of the session %s", c.name, n, dir)
	if view != nil {
		view.Note(msg)
	} else {
		fmt.Fprintln(e.stderr, msg)
	}
	return e.runPlan(&diag.File{Name: filepath.Join(dir, filepath.FromSlash(sessionfmt.PlanFile(n)))}, view, &cfg)
}
