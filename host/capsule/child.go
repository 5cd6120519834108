package host

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
	"sync/atomic"
	"time"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/host/shell"
)

// CapsuleCommand is the hidden planc subcommand a sub-capsule runs as: the
// launcher starts `planc __capsule --roost DIR --session DIR MANIFEST`
// (RunCapsule).
const CapsuleCommand = "__capsule"

// The environment of a sub-capsule (runtime.md).
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
	// EnvCapsuleGrace, a Go duration, replaces the 5 s between SIGTERM and
	// SIGKILL of an ended sub-capsule; for tests.
	EnvCapsuleGrace = "PLANC_CAPSULE_GRACE"
)

// CapsuleGrace is the time between a sub-capsule's SIGTERM and the SIGKILL
// of its leaf cgroup: shell.DefaultGrace (5 s, the seed's), unless
// PLANC_CAPSULE_GRACE gives a positive Go duration.
func CapsuleGrace() time.Duration {
	if d, err := time.ParseDuration(os.Getenv(EnvCapsuleGrace)); err == nil && d > 0 {
		return d
	}
	return shell.DefaultGrace
}

// capsuleStatus is one line a sub-capsule writes on its status pipe (fd 4):
// {"up": true} once it can be ended by SIGTERM, then its outcome.
type capsuleStatus struct {
	Up      bool   `json:"up,omitempty"`
	Outcome string `json:"outcome,omitempty"` // completed, failed or canceled
	Reason  string `json:"reason,omitempty"`
}

// CapsuleConfig is one sub-capsule run: `planc __capsule`.
type CapsuleConfig struct {
	// Manifest is the capsule's capsule.json in the roost; its relative
	// paths start from its directory.
	Manifest string
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
	// Lifeline blocks reads while the spawner lives and ends (EOF or an
	// error) when it dies; nil for none.
	Lifeline io.Reader
	// Status receives the status lines for the launcher; nil for none.
	Status io.Writer
}

// RunCapsule runs a sub-capsule and returns planc's exit status for it
// (ExitCompleted, ExitFailed, ExitRefused, ExitCanceled). A command
// entrypoint gets the objective on its standard input and answers on its
// standard output; a plan entrypoint runs its plan with Run, under the
// capsule's own manifest, and answers with the report JSON. Cancelling ctx
// (SIGTERM) winds it down: session_end with exit_status canceled. When the
// lifeline ends it writes spawner_ended, ends its work and returns without
// session_end and without an outcome.
func RunCapsule(ctx context.Context, cfg CapsuleConfig) int {
	st := &statusWriter{w: cfg.Status}
	fail := func(code int, err error) int { return capsuleFail(&cfg, st, code, err) }
	src, err := os.ReadFile(cfg.Manifest)
	if err != nil {
		return fail(ExitRefused, err)
	}
	m, err := LoadCapsuleManifest(cfg.Manifest, src)
	if err != nil {
		return fail(ExitRefused, err)
	}
	if m.Entrypoint == nil {
		return fail(ExitRefused, fmt.Errorf("%s has no entrypoint", cfg.Manifest))
	}
	objective, err := io.ReadAll(cfg.Stdin)
	if err != nil {
		return fail(ExitRefused, fmt.Errorf("reading the objective: %w", err))
	}
	if cfg.WorkDir, err = absDir(cfg.WorkDir); err != nil {
		return fail(ExitRefused, err)
	}
	if err := os.MkdirAll(cfg.SessionDir, 0o755); err != nil {
		return fail(ExitRefused, err)
	}
	objPath, _ := filepath.Abs(filepath.Join(cfg.SessionDir, ObjectiveFile))
	if _, err := os.Stat(objPath); errors.Is(err, fs.ErrNotExist) {
		os.WriteFile(objPath, objective, 0o644)
	}
	os.Setenv(EnvObjectiveFile, objPath) // for the command, and the plan's steps
	ended := watchLifeline(cfg.Lifeline)
	manifestDir := filepath.Dir(cfg.Manifest)
	if m.Entrypoint.Command != nil {
		return runCommandCapsule(ctx, &cfg, st, m, manifestDir, objective, ended)
	}
	return runPlanCapsule(ctx, &cfg, st, m, manifestDir, ended)
}

// runPlanCapsule runs a plan entrypoint with Run and answers with its
// report JSON.
func runPlanCapsule(ctx context.Context, cfg *CapsuleConfig, st *statusWriter, m *ast.Manifest, manifestDir string, ended <-chan struct{}) int {
	planPath := m.Entrypoint.Plan
	if !filepath.IsAbs(planPath) {
		planPath = filepath.Join(manifestDir, planPath)
	}
	// The entrypoint plan is the capsule's own: running it needs no
	// submit-plan grant.
	m.Capabilities.PlanSubmit = true
	st.send(capsuleStatus{Up: true})
	src, err := os.ReadFile(planPath)
	var res *Result
	if err == nil {
		res, err = Run(ctx, Config{
			Plan: src, Manifest: m, ManifestDir: manifestDir, WorkDir: cfg.WorkDir,
			SessionDir: cfg.SessionDir, Roost: cfg.Roost,
			SpawnedBy: cfg.SpawnedBy, DelegationID: cfg.DelegationID, SpawnerEnded: ended,
			Notice: func(s string) { fmt.Fprintf(cfg.Stderr, "planc %s: %s\n", CapsuleCommand, s) },
		})
	} else {
		err = fmt.Errorf("its entrypoint plan: %w", err)
	}
	if res == nil {
		var re *RefusedError
		if errors.As(err, &re) && len(re.Diagnostics) > 0 {
			for _, d := range re.Diagnostics {
				if d.Severity == ast.Error {
					err = fmt.Errorf("its entrypoint plan %s is refused: %d:%d: %s [%s]", m.Entrypoint.Plan, d.Span.Start.Line, d.Span.Start.Col, d.Message, d.Code)
					break
				}
			}
		}
		recordRefusal(cfg, m)
		return capsuleFail(cfg, st, ExitStatus(res, err), err)
	}
	enc := json.NewEncoder(cfg.Stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if werr := enc.Encode(res.Report); werr != nil {
		return capsuleFail(cfg, st, ExitFailed, fmt.Errorf("writing the answer: %w", werr))
	}
	if err != nil {
		fmt.Fprintf(cfg.Stderr, "planc %s: %v\n", CapsuleCommand, err)
	}
	switch res.Status {
	case ExitCompleted:
		st.send(capsuleStatus{Outcome: DelegationCompleted})
	case ExitCanceled:
		st.send(capsuleStatus{Outcome: ExitStatusCanceled, Reason: "it was cancelled: " + res.Report.Summary})
	default:
		st.send(capsuleStatus{Outcome: DelegationFailed, Reason: "its plan did not complete: " + res.Report.Summary})
	}
	return res.Status
}

// capsuleFail reports a sub-capsule's failure on standard error and the
// status pipe, and returns code.
func capsuleFail(cfg *CapsuleConfig, st *statusWriter, code int, err error) int {
	fmt.Fprintf(cfg.Stderr, "planc %s: %v\n", CapsuleCommand, err)
	st.send(capsuleStatus{Outcome: DelegationFailed, Reason: err.Error()})
	return code
}

// recordRefusal gives a sub-capsule whose plan was refused before Run
// opened its session a session all the same, with session_start and
// session_end failed, so that its delegation directory says who it was.
func recordRefusal(cfg *CapsuleConfig, m *ast.Manifest) {
	if _, err := os.Stat(filepath.Join(cfg.SessionDir, SessionFile)); err == nil {
		return // Run opened the session and closed it
	}
	sess, err := OpenSession(cfg.SessionDir, SessionInfo{Capsule: m.Name, Version: m.Version, SpawnedBy: nullable(cfg.SpawnedBy), DelegationID: nullable(cfg.DelegationID)})
	if err != nil {
		return
	}
	tr, err := OpenTrace(filepath.Join(sess.Dir, TraceFile), sess.Info.ID)
	if err != nil {
		return
	}
	defer tr.Close()
	tr.SessionStart(m.Name, m.Version, cfg.SpawnedBy, cfg.DelegationID)
	tr.SessionEnd(ExitStatusFailed)
}

// statusWriter writes status lines, one write each; errors are dropped
// (a launcher that is gone reads nothing).
type statusWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *statusWriter) send(st capsuleStatus) {
	if s.w == nil {
		return
	}
	b, _ := json.Marshal(st)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.w.Write(append(b, '\n'))
}

// watchLifeline returns a channel closed when r ends: the spawner died.
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

// nullable is s as session.json's nullable string: nil for "".
func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// spawnerWatch is Run's watch over a sub-capsule's lifeline
// (Config.SpawnerEnded).
type spawnerWatch struct {
	ended atomic.Bool
	stop  chan struct{}
	done  chan struct{}
}

// watchSpawner watches cfg.SpawnerEnded for Run: when it closes, the
// spawner is gone, so it writes spawner_ended, cancels the plan and, a
// grace period later, aborts it (it wraps cfg.Abort to do so): nothing
// waits for this sub-capsule's work any more. The returned context is
// Run's from then on.
func watchSpawner(ctx context.Context, cfg *Config, tr *Trace) (context.Context, *spawnerWatch) {
	w := &spawnerWatch{stop: make(chan struct{}), done: make(chan struct{})}
	if cfg.SpawnerEnded == nil {
		close(w.done)
		return ctx, w
	}
	ctx, cancel := context.WithCancel(ctx)
	orig, abort := cfg.Abort, make(chan struct{})
	cfg.Abort = abort
	go func() {
		defer close(w.done)
		defer cancel()
		var once sync.Once
		closeAbort := func() { once.Do(func() { close(abort) }) }
		ended := cfg.SpawnerEnded
		var grace <-chan time.Time
		for {
			select {
			case <-orig:
				orig = nil
				closeAbort()
			case <-ended:
				ended = nil
				w.ended.Store(true)
				tr.SpawnerEnded()
				cancel()
				t := time.NewTimer(CapsuleGrace())
				defer t.Stop()
				grace = t.C
			case <-grace:
				grace = nil
				closeAbort()
			case <-w.stop:
				select {
				case <-ended: // it ended as the plan did: still say so
					w.ended.Store(true)
					tr.SpawnerEnded()
				default:
				}
				return
			}
		}
	}()
	return ctx, w
}

// close stops the watch and reports whether the spawner ended: then Run
// writes no session_end.
func (w *spawnerWatch) close() bool {
	select {
	case <-w.stop:
	default:
		close(w.stop)
	}
	<-w.done
	return w.ended.Load()
}
