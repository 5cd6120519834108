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

// resumeTarget is what --resume was asked to redrive: a session ("" for
// the newest) and a plan (0 for the session's last).
type resumeTarget struct {
	session string
	plan    int
}

// target returns the redrive asked for by the positional arguments and
// --session (problem has checked them).
func (f resumeFlags) target(pos []string, sessionFlag string) resumeTarget {
	t := resumeTarget{session: sessionFlag, plan: *f.plan}
	if len(pos) == 1 {
		t.session = pos[0]
	}
	return t
}

// resume redrives plan t.plan of session t.session with cfg (planc run
// --resume): it finds the session and the plan, says on standard error
// which it resumes, and runs it as planc run runs a plan.
func (e *env) resume(c *command, view progress.View, t resumeTarget, cfg host.Config) int {
	fail := func(format string, args ...any) int {
		msg := fmt.Sprintf(format, args...)
		fmt.Fprintf(e.stderr, "planc %s: %s\n", c.name, msg)
		refused(view, msg)
		return exitUsage
	}
	dir, n, err := host.FindRedrive(cfg.WorkDir, t.session, t.plan)
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
