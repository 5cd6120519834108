package host

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/planc/planc/check"
	"github.com/planc/planc/host/sandbox/cgroups"
	"github.com/planc/planc/host/session"
	"github.com/planc/planc/internal/sessionfmt"
	"github.com/planc/planc/ir"
	"github.com/planc/planc/parser"
	"github.com/planc/planc/tracefile"
	"github.com/planc/planc/vm"
)

// redrive is a redrive of a plan (S25–S28, docs/resume.md) made ready
// before its session's trace gets a line: the plan's lock held, its plan
// file read back and held to the SHA-256 its first plan_start recorded,
// the plan checked again with this run's capabilities, and what the
// earlier runs recorded turned into the VM's Options.Prior.
type redrive struct {
	lock  *session.PlanLock
	file  *session.PlanFile
	plan  *check.Plan
	prog  *ir.Program
	opts  vm.Options
	notes []string // what the read-back noticed, for Config.Notice
}

// prepareRedrive makes the redrive of plan cfg.RedrivePlan of the session
// cfg.SessionDir ready. Every refusal is a *RefusedError, and leaves the
// lock free.
func (r *run) prepareRedrive() (sess *session.Session, rd *redrive, err error) {
	n := r.cfg.RedrivePlan
	if n < 0 {
		return nil, nil, fmt.Errorf("host.Run: Config.RedrivePlan is %d, not a plan number", n)
	}
	if r.cfg.Plan != nil || r.cfg.SessionDir == "" {
		return nil, nil, errors.New("host.Run: a redrive (Config.RedrivePlan) takes Config.SessionDir and no Config.Plan")
	}
	if sess, err = session.OpenExisting(r.cfg.SessionDir); err != nil {
		return nil, nil, &RefusedError{Msg: err.Error()}
	}
	rel := sessionfmt.PlanFile(n)
	lock, err := sess.LockPlan(n, false)
	if err != nil {
		return nil, nil, &RefusedError{Msg: err.Error()}
	}
	defer func() {
		if err != nil {
			lock.Unlock()
		}
	}()
	pf, src, err := sess.OpenPlan(n, parser.DefaultLimits().MaxBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, &RefusedError{Msg: fmt.Sprintf("nothing to resume: the session %s has no plan %d (%s)", sess.Dir, n, rel)}
	} else if err != nil {
		return nil, nil, &RefusedError{Msg: fmt.Sprintf("cannot read %s: %v", filepath.Join(sess.Dir, rel), err)}
	}
	rec, err := tracefile.ReadPlan(sess.Dir, n)
	switch {
	case errors.Is(err, tracefile.ErrNotStarted):
		return nil, nil, &RefusedError{Msg: fmt.Sprintf("nothing to resume: plan %d never started (it was refused before its first step)", n)}
	case err != nil:
		return nil, nil, &RefusedError{Msg: fmt.Sprintf("cannot read the trace of plan %d back: %v", n, err)}
	case rec.Completed():
		return nil, nil, &RefusedError{Msg: fmt.Sprintf("nothing to resume: plan %d completed", n)}
	}
	if err := rec.VerifyPlan(src); err != nil {
		return nil, nil, &RefusedError{Msg: "the plan is refused: " + err.Error()}
	}
	// Checked in the capsule's environment, as a first run is.
	plan, ds := r.cfg.Env.Load(src)
	if plan == nil {
		return nil, nil, &RefusedError{Diagnostics: ds, Source: src}
	}
	prog, err := ir.Lower(plan)
	if err != nil {
		return nil, nil, fmt.Errorf("lower the checked plan: %w", err)
	}
	workDir := r.workDir
	prior, notes := RedrivePrior(rec, prog, func(k tracefile.KeptOutput, whole string) string {
		return sessionfmt.CutText(whole, sessionfmt.OutputLimit, session.ShownPath(workDir, k.Path))
	})
	rd = &redrive{
		lock: lock, file: pf, plan: plan, prog: prog,
		opts: vm.Options{PlanFile: pf.Rel, PlanSHA256: rec.SHA256, Redrive: rec.Redrives + 1, Prior: prior},
	}
	for _, note := range append(rec.Notes, notes...) {
		rd.notes = append(rd.notes, fmt.Sprintf("resume plan %d: %s", n, note))
	}
	return sess, rd, nil
}

// removeScopes kills and removes what the plan's earlier runs left in
// their cgroup scopes: only a planc that died leaves a scope, and it may
// still hold a step that was running then, which must not run beside its
// new attempt (S27).
func (rd *redrive) removeScopes(task *session.Task) {
	for k := range rd.opts.Redrive {
		cgroups.RemoveScope(scopeName(task, k))
	}
}

// RedrivePrior is the VM's input for a redrive of prog, the plan rec is
// of: one vm.Prior per step of prog, indexed like prog.Steps (S26), made
// of what the trace, the output index, the kept report and the kept
// outputs hold (tracefile's PlanRecord.Prior, which says which wins; cut
// as there). The notes are those about the report and the outputs.
func RedrivePrior(rec *tracefile.PlanRecord, prog *ir.Program, cut tracefile.CutFunc) ([]vm.Prior, []tracefile.Note) {
	ids := make([]string, len(prog.Steps))
	for i := range prog.Steps {
		ids[i] = prog.Steps[i].ID
	}
	steps, notes := rec.Prior(ids, cut)
	prior := make([]vm.Prior, len(steps))
	for i, s := range steps {
		prior[i] = vm.Prior{Output: s.Output, Error: s.Error, Attempt: s.Attempt}
		// tracefile lets through only the statuses the VM spells; a step
		// with any other would run again.
		if s.Status != "" && prior[i].Status.UnmarshalText([]byte(s.Status)) != nil {
			prior[i] = vm.Prior{Attempt: s.Attempt}
		}
	}
	return prior, notes
}
