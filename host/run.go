package host

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/check"
	"github.com/planc/planc/host/protect"
	"github.com/planc/planc/host/shell"
	"github.com/planc/planc/host/toolschema"
	"github.com/planc/planc/ir"
	"github.com/planc/planc/parser"
	"github.com/planc/planc/vm"
)

// DefaultShellTimeout is a shell step's bound when neither the manifest
// nor the caller sets one (semantics S20).
const DefaultShellTimeout = 10 * time.Minute

// Exit statuses of `planc run` (cli.md).
const (
	ExitCompleted = 0 // the plan completed
	ExitFailed    = 1 // a step stopped it
	ExitRefused   = 2 // refused before any step ran, or a usage error
	ExitCanceled  = 3 // it was cancelled
)

// CodeNoScope is the refusal of a plan that needs a delegated cgroup v2
// scope when there is none (runtime.md).
const CodeNoScope = shell.Code

// Config is one `planc run`.
type Config struct {
	// Plan is the plan's text as submitted. It is written to the session
	// and what runs is what is read back from there.
	Plan []byte
	// Checked, when set, is Plan as Validate parsed it against Manifest,
	// with no error: Run takes it instead of parsing and checking Plan
	// again (planc run and serve validate first, to refuse a plan before
	// any session is made). nil: Run validates Plan itself.
	Checked *ast.Plan
	// Manifest is the capsule manifest, nil for DefaultManifest.
	// ManifestDir is the directory its relative paths start from.
	Manifest    *ast.Manifest
	ManifestDir string
	// WorkDir is where steps run and tool paths start; "" is the current
	// directory.
	WorkDir string
	// SessionDir reuses (or makes) that session directory; "" makes a new
	// one under WorkDir/.planc/sessions.
	SessionDir string
	// MaxParallel caps the shell and capsule steps in flight; 0 is no cap.
	MaxParallel int
	// ShellTimeout is every shell step's bound; 0 takes the manifest's
	// capabilities.shell.timeout, or DefaultShellTimeout.
	ShellTimeout time.Duration
	// Abort, once closed, ends everything at once: every process of the
	// plan's scope is killed (a second SIGINT). Cancelling Run's context
	// is the gentle cancel (S22).
	Abort <-chan struct{}
	// Observe, when set, sees every VM event after it is traced, on the
	// VM's scheduler goroutine; the live view is driven from it.
	Observe func(*ir.Program, vm.Event)
	// Notice receives one-line notes for the user (e.g. that the kernel
	// cannot protect the plan files); nil drops them.
	Notice func(string)
	// Roost is the roost capsule steps spawn from; "" is WorkDir/roost
	// (roost.go).
	Roost string
	// SpawnedBy and DelegationID name the parent session and delegation
	// when this run is a sub-capsule's (capsule.go); "" at top level.
	SpawnedBy, DelegationID string
	// SpawnerEnded, when set, closes when a sub-capsule's spawner dies:
	// Run writes spawner_ended, ends the plan, and writes no session_end.
	SpawnerEnded <-chan struct{}

	// probe and open replace shell.Probe and shell.OpenScope in tests.
	probe func() error
	open  func(name string) (shellScope, error)
}

// probeScope checks that a delegated cgroup v2 scope can be had, without
// keeping one.
func (cfg *Config) probeScope() error {
	if cfg.probe != nil {
		return cfg.probe()
	}
	return shell.Probe()
}

// openScope opens the plan's scope.
func (cfg *Config) openScope(name string) (shellScope, error) {
	if cfg.open != nil {
		return cfg.open(name)
	}
	sc, err := shell.OpenScope(name)
	if err != nil {
		return nil, err // not a nil *Scope in an interface
	}
	return sc, nil
}

// Result is what Run did.
type Result struct {
	// Report is the seed's report.
	Report vm.Report
	// Status is the exit status: ExitCompleted, ExitFailed or
	// ExitCanceled.
	Status int
	// Session is the session directory the plan ran in.
	Session *Session
	// Plan is the plan file it ran from.
	Plan *PlanFile
}

// RefusedError is a plan refused before any step ran (exit status 2).
type RefusedError struct {
	// Code is CodeNoScope for E-RUN-012, "" otherwise.
	Code string
	// Diagnostics are the validation's findings when the plan itself was
	// refused; Source is the text they point into.
	Diagnostics []ast.Diagnostic
	Source      []byte
	// Msg says why, when there are no diagnostics.
	Msg string
}

// Error returns the refusal's message.
func (e *RefusedError) Error() string {
	if e.Msg != "" {
		return e.Msg
	}
	for _, d := range e.Diagnostics {
		if d.Severity == ast.Error {
			return "the plan is refused: " + d.Message
		}
	}
	return "the plan is refused"
}

// Validate parses and checks plan text against a manifest's capabilities.
// plan is nil when the text is unusable; the plan is refused when ds has
// an error.
func Validate(src []byte, m *ast.Manifest) (*ast.Plan, []ast.Diagnostic) {
	plan, ds := parser.ParsePlan(src, parser.DefaultLimits())
	if plan != nil {
		ds = append(ds, check.Check(plan, check.CapabilitiesOf(m).WithSchemas(toolschema.Builtin()))...)
	}
	return plan, ds
}

// Run runs one plan the way `planc run` does: it admits the manifest,
// validates the plan, makes sure a plan with shell or capsule steps (or a
// manifest with MCP servers) has a delegated cgroup v2 scope (E-RUN-012
// otherwise, before anything is written), opens the session and its trace,
// writes the plan file, starts the MCP servers in the scope and runs what
// it reads back, and closes everything. Cancelling ctx cancels the
// plan (S22). A *RefusedError means nothing ran (exit 2); any other error
// is a failure of the runtime itself.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	m := cfg.Manifest
	if m == nil {
		m = DefaultManifest()
	}
	if err := Admit(m); err != nil {
		return nil, err
	}
	plan := cfg.Checked
	if plan == nil {
		var ds []ast.Diagnostic
		if plan, ds = Validate(cfg.Plan, m); plan == nil || ast.HasErrors(ds) {
			return nil, &RefusedError{Diagnostics: ds, Source: cfg.Plan}
		}
	}
	workDir, err := absDir(cfg.WorkDir)
	if err != nil {
		return nil, err
	}
	// MCP servers run in the plan's scope too (runtime.md, "Tools").
	needScope := needsScope(plan) || len(m.Tools.MCP) > 0
	if needScope {
		if err := cfg.probeScope(); err != nil {
			return nil, &RefusedError{Code: CodeNoScope, Msg: shell.ScopeRefusal(err)}
		}
	}

	info := SessionInfo{Capsule: m.Name, Version: m.Version, SpawnedBy: nullable(cfg.SpawnedBy), DelegationID: nullable(cfg.DelegationID)}
	var sess *Session
	if cfg.SessionDir != "" {
		sess, err = OpenSession(cfg.SessionDir, info)
	} else {
		sess, err = CreateSession(filepath.Join(workDir, DefaultSessionsDir), info)
	}
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	tr, err := OpenTrace(filepath.Join(sess.Dir, TraceFile), sess.Info.ID)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	defer tr.Close()
	tr.SessionStart(m.Name, m.Version, cfg.SpawnedBy, cfg.DelegationID)

	ctx, spawner := watchSpawner(ctx, &cfg, tr) // a sub-capsule's lifeline
	res, err := runPlan(ctx, &cfg, m, plan, workDir, sess, tr, needScope)
	spawnerEnded := spawner.close()
	status := ExitStatusFailed
	if res != nil {
		res.Session = sess
		switch res.Status {
		case ExitCompleted:
			status = ExitStatusOK
		case ExitCanceled:
			status = ExitStatusCanceled
		}
	}
	if !spawnerEnded { // spawner_ended closes a sub-capsule's trace instead
		tr.SessionEnd(status)
	}
	if cerr := tr.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("trace: %w", cerr)
	}
	return res, err
}

// runPlan is Run once the session is open: the plan file, the scope, the
// VM. plan is cfg.Plan as Run validated it.
func runPlan(ctx context.Context, cfg *Config, m *ast.Manifest, plan *ast.Plan, workDir string, sess *Session, tr *Trace, needScope bool) (*Result, error) {
	pf, err := sess.WritePlan(cfg.Plan)
	if err != nil {
		return nil, err
	}
	// What runs is what is read back from the plan file. ReadPlan refuses
	// a file whose SHA-256 is not that of the bytes written, so the file
	// holds exactly the bytes Run validated: plan is their parse, and
	// parsing and checking them a second time would find the same.
	src, err := sess.ReadPlan(pf, parser.DefaultLimits().MaxBytes)
	if err != nil {
		return nil, &RefusedError{Msg: err.Error()}
	}
	prog, err := ir.Lower(plan)
	if err != nil {
		return nil, &RefusedError{Msg: err.Error()}
	}

	h := &runHost{
		prog:    prog,
		trace:   tr,
		tools:   &Builtins{WorkDir: workDir, NotesPath: filepath.Join(sess.Dir, NotesFile)},
		session: sess,
		planN:   pf.N,
		workDir: workDir,
		observe: cfg.Observe,
	}
	manifestDir := cfg.ManifestDir
	if manifestDir == "" {
		manifestDir = workDir
	}
	h.plansDir = absPath("", filepath.Join(sess.Dir, PlansDir))
	h.caps = newDelegations(cfg, m, workDir, sess, pf.N, tr)
	h.shell = shellSpec{dir: workDir, timeout: shellTimeout(cfg, m), protect: protectedPaths(m, manifestDir, h.plansDir)}
	// The checker's read_only paths: the manifest's, and the plan files.
	ro := append(ast.Names(m.Capabilities.ReadOnly), h.plansDir)
	checker, err := protect.New(protect.Config{ReadOnly: ro, BaseDir: manifestDir, Hooks: m.Hooks, WorkDir: workDir})
	if err != nil {
		return nil, &RefusedError{Msg: "capabilities.filesystem.read_only: " + err.Error()}
	}
	h.checker = checker
	if needScope {
		sc, err := cfg.openScope("planc-" + sess.Info.ID + "-" + strconv.Itoa(pf.N))
		if err != nil {
			return nil, &RefusedError{Code: CodeNoScope, Msg: shell.ScopeRefusal(err)}
		}
		h.scope = sc
		if off := sc.ProtectionOff(); off != "" && cfg.Notice != nil && hasShell(prog) {
			cfg.Notice(off)
		}
	}
	// The MCP servers start in the scope, once; the plan is validated
	// again with their tools (unknown-tool was pending until now).
	if err := h.startMCP(ctx, m, manifestDir, plan, src); err != nil {
		if h.scope != nil {
			h.scope.Close()
		}
		return nil, err
	}

	var wg sync.WaitGroup
	stop := make(chan struct{})
	if h.scope != nil && cfg.Abort != nil {
		wg.Go(func() {
			select {
			case <-cfg.Abort:
				h.scope.Kill()
			case <-stop:
			}
		})
	}
	rep, err := vm.Run(ctx, prog, h, vm.Options{MaxParallel: cfg.MaxParallel, PlanFile: pf.Rel})
	close(stop)
	wg.Wait()
	cerr := h.mcp.close() // before the scope, which would kill them abruptly
	if h.scope != nil {
		if serr := h.scope.Close(); serr != nil {
			cerr = errors.Join(cerr, fmt.Errorf("close the cgroup scope: %w", serr))
		}
	}
	if err != nil {
		return nil, errors.Join(err, cerr)
	}
	res := &Result{Report: rep, Plan: pf, Status: ExitCompleted}
	switch rep.Outcome {
	case vm.Failed:
		res.Status = ExitFailed
	case vm.Canceled:
		res.Status = ExitCanceled
	}
	// The report stands; an error beside it is the runtime's own failure
	// (a trace write, the scope's removal), said on standard error.
	return res, errors.Join(cerr, tr.Err())
}

// ExitStatus returns `planc run`'s exit status for Run's outcome.
func ExitStatus(res *Result, err error) int {
	var re *RefusedError
	if errors.As(err, &re) || res == nil {
		return ExitRefused // nothing ran
	}
	return res.Status
}

// needsScope reports whether a plan has a shell or capsule step: those
// need a delegated cgroup v2 scope (runtime.md).
func needsScope(p *ast.Plan) bool {
	for _, s := range p.Steps {
		if s.Kind == ast.KindShell || s.Kind == ast.KindCapsule {
			return true
		}
	}
	return false
}

// hasShell reports whether prog has a shell step.
func hasShell(prog *ir.Program) bool {
	for i := range prog.Steps {
		if prog.Steps[i].Kind == ir.KindShell {
			return true
		}
	}
	return false
}

// shellTimeout is the bound of every shell step: the caller's, else the
// manifest's, else the default.
func shellTimeout(cfg *Config, m *ast.Manifest) time.Duration {
	switch {
	case cfg.ShellTimeout > 0:
		return cfg.ShellTimeout
	case m.Capabilities.ShellTimeout != nil:
		return m.Capabilities.ShellTimeout.D
	}
	return DefaultShellTimeout
}

// protectedPaths are the paths no step may write under: the session's
// plans/ directory and every capabilities.filesystem.read_only path
// (relative to the manifest's directory), made absolute.
func protectedPaths(m *ast.Manifest, manifestDir, plansDir string) []string {
	out := []string{plansDir}
	for _, p := range m.Capabilities.ReadOnly {
		out = append(out, absPath(manifestDir, p.Name))
	}
	return out
}

// absPath makes p absolute against base (itself made absolute), cleaned.
func absPath(base, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

// absDir returns dir ("" for the current directory) as an absolute path
// of an existing directory.
func absDir(dir string) (string, error) {
	if dir == "" {
		return os.Getwd()
	}
	a, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(a); err != nil {
		return "", err
	} else if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", a)
	}
	return a, nil
}
