package capsule

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/check"
	"github.com/planc/planc/host/capenv"
	"github.com/planc/planc/host/sandbox"
	"github.com/planc/planc/host/session"
	"github.com/planc/planc/internal/sessionfmt"
	"github.com/planc/planc/vm"
)

// Command is the hidden planc subcommand a sub-capsule runs as: the
// launcher starts `planc __capsule --roost DIR --session DIR MANIFEST`
// (RunChild).
const Command = sandbox.CapsuleCommand

// The environment of a sub-capsule (docs/capsules.md).
const (
	// EnvSpawnedBy is the parent's session id.
	EnvSpawnedBy = "PLANC_SPAWNED_BY"
	// EnvDelegationID is the delegation's id in the parent's session.
	EnvDelegationID = "PLANC_DELEGATION_ID"
	// EnvDelegationDepth counts the sub-capsules above this one, from 1.
	EnvDelegationDepth = "PLANC_DELEGATION_DEPTH"
	// EnvObjectiveFile is the path of the objective's file, set for the
	// entrypoint's command and its plan's steps.
	EnvObjectiveFile = "PLANC_OBJECTIVE_FILE"
	// EnvGrace, a Go duration, replaces the 5 s between SIGTERM and
	// SIGKILL of an ended sub-capsule; for tests.
	EnvGrace = "PLANC_CAPSULE_GRACE"
)

// Grace is the time between a sub-capsule's SIGTERM and the SIGKILL of its
// leaf cgroup: sandbox.DefaultGrace (5 s), unless PLANC_CAPSULE_GRACE gives
// a positive Go duration.
func Grace() time.Duration {
	if d, err := time.ParseDuration(os.Getenv(EnvGrace)); err == nil && d > 0 {
		return d
	}
	return sandbox.DefaultGrace
}

// statusOutcome is how a sub-capsule says it ended on its status pipe.
type statusOutcome string

// The outcomes of a status line.
const (
	statusCompleted statusOutcome = "completed"
	statusFailed    statusOutcome = "failed"
	statusCanceled  statusOutcome = "canceled"
)

// status is one line a sub-capsule writes on its status pipe (fd 4):
// {"up": true} once it can be ended by SIGTERM, then its outcome.
type status struct {
	Up      bool          `json:"up,omitempty"`
	Outcome statusOutcome `json:"outcome,omitempty"`
	Reason  string        `json:"reason,omitempty"`
}

// ChildConfig is one sub-capsule run: `planc __capsule`.
type ChildConfig struct {
	// Manifest is the capsule's capsule.json in the roost; its relative
	// paths start from its directory.
	Manifest string
	// ManifestSrc, when not nil, holds the manifest's bytes as the
	// launcher read them beneath the roost at spawn: the child parses
	// those and does not read Manifest, which a step could have changed
	// since. A header block of the spawn's pins may come first (Pin):
	// the child checks them and runs what they led to.
	ManifestSrc io.Reader
	// SessionDir is the sub-capsule's session directory: delegations/<id>/
	// in its parent's session.
	SessionDir string
	// Roost is the roost its own capsule steps spawn from.
	Roost string
	// WorkDir is where its command or steps run; "" is the current
	// directory.
	WorkDir string
	// SpawnedBy and DelegationID name its parent session and delegation
	// ($PLANC_SPAWNED_BY, $PLANC_DELEGATION_ID).
	SpawnedBy, DelegationID string
	// Stdin holds the objective; the answer goes to Stdout, diagnostics to
	// Stderr.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Lifeline blocks reads while the parent lives and ends (EOF or an
	// error) when it dies; nil for none.
	Lifeline io.Reader
	// Status receives the status lines for the launcher; nil for none.
	Status io.Writer
}

// PlanEntry is a plan entrypoint to run, checked against the capsule's
// own manifest.
type PlanEntry struct {
	// Config is the sub-capsule's run, with WorkDir made absolute.
	*ChildConfig
	// Plan is the entrypoint's plan, checked in Env, the capsule's own
	// environment (its manifest's relative paths start from Env.Dir).
	Plan *check.Plan
	Env  *capenv.Env
	// ParentEnded closes when the lifeline ends: the run then writes
	// spawner_ended and no session_end.
	ParentEnded <-chan struct{}
	// AtPlanStart is for the run's host.Config.AtPlanStart: it refuses
	// the plan when what the run resolved is not what the spawn pinned.
	AtPlanStart func([]Resolved) error
}

// PlanResult is what running a plan entrypoint gave.
type PlanResult struct {
	// Report is the plan's report; nil when nothing ran (the plan was
	// refused).
	Report *vm.Report
	// Code is planc's exit status for a run with a report.
	Code session.ExitCode
	// Refused holds the diagnostics of a plan refused once its MCP
	// servers' tools were known.
	Refused []ast.Diagnostic
}

// PlanRunner runs a plan entrypoint the way `planc run` runs a plan
// (host.Run, which host.RunCapsule passes in: this package cannot import
// host, which imports it). The error beside a result with a report is the
// runtime's own failure, said on standard error.
type PlanRunner func(ctx context.Context, e PlanEntry) (PlanResult, error)

// RunChild runs a sub-capsule and returns planc's exit status for it. A
// command entrypoint gets the objective on its standard input and answers
// on its standard output; a plan entrypoint runs its plan with runPlan,
// under the capsule's own manifest, and answers with the report JSON.
// Cancelling ctx (SIGTERM) winds it down: session_end with exit_status
// canceled. When the lifeline ends it writes spawner_ended, ends its work
// and returns without session_end and without an outcome.
func RunChild(ctx context.Context, cfg ChildConfig, runPlan PlanRunner) session.ExitCode {
	r := &child{cfg: &cfg, st: &statusWriter{w: cfg.Status}, manifestDir: filepath.Dir(cfg.Manifest)}
	var src []byte
	var err error
	if cfg.ManifestSrc != nil {
		r.pins, src, err = readPinned(cfg.ManifestSrc)
	} else {
		src, err = os.ReadFile(cfg.Manifest)
	}
	if err != nil {
		return r.fail(session.ExitRefused, err)
	}
	// What the spawn checked is checked again before anything of it is
	// used: a link re-pointed or a file replaced since is refused.
	spawnPause()
	if err := r.checkPins(); err != nil {
		return r.fail(session.ExitRefused, err)
	}
	if r.m, err = LoadManifest(cfg.Manifest, src); err != nil {
		return r.fail(session.ExitRefused, err)
	}
	if r.m.Entrypoint == nil {
		return r.fail(session.ExitRefused, fmt.Errorf("%s has no entrypoint", cfg.Manifest))
	}
	objective, err := io.ReadAll(cfg.Stdin)
	if err != nil {
		return r.fail(session.ExitRefused, fmt.Errorf("reading the objective: %w", err))
	}
	if cfg.WorkDir, err = session.AbsDir(cfg.WorkDir); err != nil {
		return r.fail(session.ExitRefused, err)
	}
	if err := os.MkdirAll(cfg.SessionDir, 0o755); err != nil {
		return r.fail(session.ExitRefused, err)
	}
	objPath, _ := filepath.Abs(filepath.Join(cfg.SessionDir, ObjectiveFile))
	if _, err := os.Stat(objPath); errors.Is(err, fs.ErrNotExist) {
		os.WriteFile(objPath, objective, 0o644)
	}
	os.Setenv(EnvObjectiveFile, objPath) // for the command, and the plan's steps
	r.ended = watchLifeline(cfg.Lifeline)
	if r.m.Entrypoint.Command != nil {
		return r.command(ctx, objective)
	}
	return r.plan(ctx, runPlan)
}

// child is one sub-capsule run, seen from inside: what its entrypoints
// share.
type child struct {
	cfg         *ChildConfig
	st          *statusWriter
	m           *ast.Manifest
	manifestDir string
	ended       <-chan struct{} // the lifeline ended
	// pins are what the spawn checked (Pin), from the header block on
	// the manifest pipe; none for a child started by hand.
	pins []Pin
}

// checkPins checks the spawn's pins again (CheckPins).
func (r *child) checkPins() error {
	if noRecheck() {
		return nil
	}
	return CheckPins(r.pins)
}

// atPlanStart is the plan entrypoint's check at its plan start
// (host.Config.AtPlanStart): what the run resolved its allowed words to
// must be what the spawn pinned (CheckResolved).
func (r *child) atPlanStart(resolved []Resolved) error {
	if noRecheck() {
		return nil
	}
	return CheckResolved(r.pins, resolved)
}

// info is the sub-capsule's session.json.
func (r *child) info() sessionfmt.SessionInfo {
	return session.NewInfo(r.m.Name, r.m.Version, r.cfg.SpawnedBy, r.cfg.DelegationID)
}

// plan runs a plan entrypoint with runPlan and answers with its report
// JSON. The entrypoint plan is the capsule's own: running it needs no
// submit-plan grant.
func (r *child) plan(ctx context.Context, runPlan PlanRunner) session.ExitCode {
	planPath := r.m.Entrypoint.Plan
	if !filepath.IsAbs(planPath) {
		planPath = filepath.Join(r.manifestDir, planPath)
	}
	r.st.send(status{Up: true})
	src, err := os.ReadFile(planPath)
	if err != nil {
		return r.refused(fmt.Errorf("its entrypoint plan: %w", err))
	}
	// Checked as planc run checks a plan, in the capsule's environment.
	env := capenv.New(r.m, capenv.Path(r.cfg.Manifest), capenv.Dir(r.manifestDir), capenv.WorkDir(r.cfg.WorkDir))
	plan, ds := env.Load(src)
	if plan == nil {
		return r.refused(r.planRefusal(ds))
	}
	res, err := runPlan(ctx, PlanEntry{ChildConfig: r.cfg, Plan: plan, Env: env, ParentEnded: r.ended, AtPlanStart: r.atPlanStart})
	if res.Report == nil {
		if len(res.Refused) > 0 {
			err = r.planRefusal(res.Refused)
		}
		return r.refused(err)
	}
	b, werr := res.Report.JSON()
	if werr == nil {
		_, werr = r.cfg.Stdout.Write(b)
	}
	if werr != nil {
		return r.fail(session.ExitFailed, fmt.Errorf("writing the answer: %w", werr))
	}
	if err != nil {
		fmt.Fprintf(r.cfg.Stderr, "planc %s: %v\n", Command, err)
	}
	switch res.Code {
	case session.ExitCompleted:
		r.st.send(status{Outcome: statusCompleted})
	case session.ExitCanceled:
		r.st.send(status{Outcome: statusCanceled, Reason: "it was cancelled: " + res.Report.Summary})
	default:
		r.st.send(status{Outcome: statusFailed, Reason: "its plan did not complete: " + res.Report.Summary})
	}
	return res.Code
}

// planRefusal is the error of an entrypoint plan refused for ds: its
// first error, with its position.
func (r *child) planRefusal(ds []ast.Diagnostic) error {
	for _, d := range ds {
		if d.Severity == ast.Error {
			return fmt.Errorf("its entrypoint plan %s is refused: %d:%d: %s [%s]", r.m.Entrypoint.Plan, d.Span.Start.Line, d.Span.Start.Col, d.Message, d.Code)
		}
	}
	return fmt.Errorf("its entrypoint plan %s is refused", r.m.Entrypoint.Plan)
}

// refused ends a sub-capsule whose plan was refused before it ran.
func (r *child) refused(err error) session.ExitCode {
	r.recordRefusal()
	return r.fail(session.ExitRefused, err)
}

// fail reports a sub-capsule's failure on standard error and the status
// pipe, and returns code.
func (r *child) fail(code session.ExitCode, err error) session.ExitCode {
	fmt.Fprintf(r.cfg.Stderr, "planc %s: %v\n", Command, err)
	r.st.send(status{Outcome: statusFailed, Reason: err.Error()})
	return code
}

// recordRefusal gives a sub-capsule whose plan was refused before its
// session was opened a session all the same, with session_start and
// session_end failed, so that its delegation directory says who it was.
func (r *child) recordRefusal() {
	if _, err := os.Stat(filepath.Join(r.cfg.SessionDir, sessionfmt.SessionFile)); err == nil {
		return // the run opened the session and closed it
	}
	_, tr, err := r.openSession()
	if err != nil {
		return
	}
	defer tr.Close()
	tr.SessionEnd(session.EndFailed)
}

// openSession opens the sub-capsule's session and its trace, and writes
// session_start: the start-up of a command entrypoint's session and of a
// refused plan's record (a plan's own run starts its session in host.Run).
func (r *child) openSession() (*session.Session, *session.Trace, error) {
	info := r.info()
	sess, err := session.Open(r.cfg.SessionDir, info)
	if err != nil {
		return nil, nil, fmt.Errorf("session: %w", err)
	}
	tr, err := sess.OpenTrace()
	if err != nil {
		return nil, nil, fmt.Errorf("trace: %w", err)
	}
	tr.Start(info)
	return sess, tr, nil
}

// statusWriter writes status lines, one write each; errors are dropped
// (a launcher that is gone reads nothing).
type statusWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// send writes st as one line.
func (s *statusWriter) send(st status) {
	if s.w == nil {
		return
	}
	b, _ := json.Marshal(st)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.w.Write(append(b, '\n'))
}

// watchLifeline returns a channel closed when r ends: the parent died.
// nil r gives a nil channel, which never closes.
func watchLifeline(r io.Reader) <-chan struct{} {
	if r == nil {
		return nil
	}
	ch := make(chan struct{})
	go func() {
		io.Copy(io.Discard, r)
		close(ch)
	}()
	return ch
}
