package host

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/check"
	"github.com/planc/planc/host/capsule"
	"github.com/planc/planc/host/protect"
	"github.com/planc/planc/host/protect/envpolicy"
	"github.com/planc/planc/host/session"
	"github.com/planc/planc/host/shell"
	"github.com/planc/planc/host/tools"
	"github.com/planc/planc/ir"
	"github.com/planc/planc/parser"
	"github.com/planc/planc/vm"
)

// DefaultShellTimeout is a shell step's bound when neither the manifest
// nor the caller sets one (semantics S20).
const DefaultShellTimeout = 10 * time.Minute

// CodeNoScope is the refusal of a plan that needs a delegated cgroup v2
// scope when there is none.
const CodeNoScope = shell.Code

// Config is one `planc run`.
type Config struct {
	// Plan is the plan to run, as check.Load accepted it with the
	// capabilities of Manifest (check.CapabilitiesOf). Its text is written
	// to the session and what runs is what is read back from there.
	Plan *check.Plan
	// Manifest is the capsule manifest, nil for DefaultManifest; the
	// caller has admitted it (Admit). ManifestDir is the directory its
	// relative paths start from.
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
	// Roost is the roost capsule steps spawn from; "" is WorkDir/roost.
	Roost string
	// SpawnedBy and DelegationID name the parent session and delegation
	// when this run is a sub-capsule's (RunCapsule); "" at top level.
	SpawnedBy, DelegationID string
	// ParentEnded, when set, closes when a sub-capsule's parent dies: Run
	// writes spawner_ended, ends the plan, and writes no session_end.
	ParentEnded <-chan struct{}

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
	// Report is the plan's report.
	Report vm.Report
	// Status is the exit status: ExitCompleted, ExitFailed or
	// ExitCanceled.
	Status session.ExitCode
	// Session is the session directory the plan ran in.
	Session *session.Session
	// Plan is the plan file it ran from.
	Plan *session.PlanFile
}

// RefusedError is a plan refused before any step ran (exit status 2).
type RefusedError struct {
	// Code is CodeNoScope for E-RUN-012, "" otherwise.
	Code string
	// Diagnostics are the findings when the plan itself was refused (once
	// the tools of the manifest's MCP servers were known); Source is the
	// text they point into.
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

// Run runs one checked plan the way `planc run` does: it makes sure a
// plan with shell or capsule steps (or a manifest with MCP servers) has a
// delegated cgroup v2 scope (E-RUN-012 otherwise, before anything is
// written), opens the session and its trace, writes the plan file, starts
// the MCP servers in the scope and runs what it reads back, and closes
// everything. Cancelling ctx cancels the plan (S22). A *RefusedError means
// nothing ran (exit 2) and, but for a sub-capsule's run, nothing was left:
// what Run made for the plan before it was refused (the session
// directory, or the plan file in a session it reused) is removed, and no
// trace line is written. Any other error is a failure of the runtime
// itself.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	m := cfg.Manifest
	if m == nil {
		m = DefaultManifest()
	}
	if cfg.Plan == nil {
		return nil, errors.New("host.Run: no checked plan in Config.Plan")
	}
	workDir, err := session.AbsDir(cfg.WorkDir)
	if err != nil {
		return nil, err
	}
	// MCP servers run in the plan's scope too (docs/mcp.md).
	needScope := needsScope(cfg.Plan.AST()) || len(m.Tools.MCP) > 0
	if needScope {
		if err := cfg.probeScope(); err != nil {
			return nil, &RefusedError{Code: CodeNoScope, Msg: scopeRefusal(err)}
		}
	}

	info := session.NewInfo(m.Name, m.Version, cfg.SpawnedBy, cfg.DelegationID)
	sess, undo, err := openSession(workDir, cfg.SessionDir, info)
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	tr, err := session.OpenTrace(filepath.Join(sess.Dir, session.TraceFile), sess.Info.ID)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	defer tr.Close()

	r := &run{cfg: &cfg, m: m, needScope: needScope, manifestDir: cfg.ManifestDir, tr: tr}
	if r.manifestDir == "" {
		r.manifestDir = workDir
	}
	// A sub-capsule's session is its delegation's record, made for it by
	// its parent: it says who ran, even when the plan is refused
	// (capsule.RunChild), so it begins at once and is never undone.
	if cfg.DelegationID != "" {
		r.begin()
	}
	var parent *capsule.ParentWatch // a sub-capsule's lifeline
	ctx, r.abort, parent = capsule.WatchParent(ctx, cfg.ParentEnded, cfg.Abort, tr)
	task := &session.Task{Session: sess, Trace: tr, WorkDir: workDir}
	res, err := r.plan(ctx, task)
	parentEnded := parent.Close()
	if _, ok := errors.AsType[*RefusedError](err); ok && !r.begun {
		tr.Close()
		undo(task.Plan)
		return nil, err
	}
	r.begin() // a runtime failure before the plan began: still say so
	status := session.ExitFailed
	if res != nil {
		res.Session = sess
		status = res.Status
	}
	if !parentEnded { // spawner_ended closes a sub-capsule's trace instead
		tr.SessionEnd(status.EndStatus())
	}
	if cerr := tr.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("trace: %w", cerr)
	}
	return res, err
}

// run is one Run once its session is open: what the plan's run shares.
type run struct {
	cfg         *Config
	m           *ast.Manifest // cfg.Manifest, or the default one
	manifestDir string        // cfg.ManifestDir, or the working directory
	needScope   bool
	abort       <-chan struct{} // cfg.Abort, or the parent watch's
	tr          *session.Trace
	begun       bool // session_start is written (begin)
}

// plan writes the plan file, opens the scope, starts the MCP servers and
// runs the VM, for task (whose Plan it sets).
func (r *run) plan(ctx context.Context, task *session.Task) (*Result, error) {
	pf, err := task.Session.WritePlan(r.cfg.Plan.Source())
	if err != nil {
		return nil, err
	}
	task.Plan = pf
	// What runs is what is read back from the plan file. ReadPlan refuses
	// a file whose SHA-256 is not that of the bytes written, so the file
	// holds exactly the bytes check accepted: the checked plan is their
	// parse, and parsing and checking them a second time would find the
	// same.
	if _, err := task.Session.ReadPlan(pf, parser.DefaultLimits().MaxBytes); err != nil {
		return nil, &RefusedError{Msg: err.Error()}
	}
	prog, err := ir.Lower(r.cfg.Plan)
	if err != nil {
		return nil, fmt.Errorf("lower the checked plan: %w", err)
	}

	h := &runHost{
		prog:     prog,
		task:     task,
		tools:    &tools.Inventory{Builtins: &tools.Builtins{WorkDir: task.WorkDir, NotesPath: task.NotesPath()}},
		plansDir: task.PlansDir(),
		observe:  r.cfg.Observe,
		caps:     capsule.NewLauncher(task, r.m, r.cfg.Roost),
	}
	h.shell = shellSpec{dir: task.WorkDir, timeout: shellTimeout(r.cfg, r.m), protect: protectedPaths(r.m, r.manifestDir, h.plansDir),
		env: envpolicy.Environ(os.Environ(), ast.EnvMap(r.m.Capabilities.ShellEnv))}
	h.caps.Protect = h.shell.protect
	// The built-in tools check what they open against the same paths.
	h.tools.Builtins.Protected = protect.NewSet(h.shell.protect, []string{h.tools.Builtins.NotesPath})
	// The checker's read_only paths: the manifest's, and the plan files.
	ro := append(ast.Names(r.m.Capabilities.ReadOnly), h.plansDir)
	checker, err := protect.New(protect.Config{ReadOnly: ro, BaseDir: r.manifestDir, Hooks: r.m.Hooks, WorkDir: task.WorkDir})
	if err != nil {
		return nil, &RefusedError{Msg: "capabilities.filesystem.read_only: " + err.Error()}
	}
	h.checker = checker
	if r.needScope {
		sc, err := r.cfg.openScope("planc-" + task.Session.Info.ID + "-" + strconv.Itoa(pf.N))
		if err != nil {
			return nil, &RefusedError{Code: CodeNoScope, Msg: scopeRefusal(err)}
		}
		h.scope = sc
		// Asking starts the shim once: only for a plan with steps to
		// protect (a capsule's command is one too).
		if r.cfg.Notice != nil && hasShell(prog) {
			if off := sc.ProtectionOff(); off != "" {
				r.cfg.Notice(off)
			}
		}
	}
	// The MCP servers start in the scope, once; the plan is checked again
	// with their tools (unknown-tool was pending until now).
	if err := r.startMCP(ctx, h); err != nil {
		if h.scope != nil {
			h.scope.Close()
		}
		return nil, err
	}

	r.begin()
	var wg sync.WaitGroup
	stop := make(chan struct{})
	if h.scope != nil && r.abort != nil {
		wg.Go(func() {
			select {
			case <-r.abort:
				h.scope.Kill()
			case <-stop:
			}
		})
	}
	rep, err := vm.Run(ctx, prog, h, vm.Options{MaxParallel: r.cfg.MaxParallel, PlanFile: pf.Rel})
	close(stop)
	wg.Wait()
	cerr := h.tools.Close() // before the scope, which would kill them abruptly
	if h.scope != nil {
		if serr := h.scope.Close(); serr != nil {
			cerr = errors.Join(cerr, fmt.Errorf("close the cgroup scope: %w", serr))
		}
	}
	if err != nil {
		return nil, errors.Join(err, cerr)
	}
	res := &Result{Report: rep, Plan: pf, Status: session.ExitCompleted}
	switch rep.Outcome {
	case vm.Failed:
		res.Status = session.ExitFailed
	case vm.Canceled:
		res.Status = session.ExitCanceled
	}
	// The report stands; an error beside it is the runtime's own failure
	// (a trace write, the scope's removal), said on standard error.
	return res, errors.Join(cerr, task.Trace.Err())
}

// startMCP starts the manifest's MCP servers for the run, once, in the
// plan's scope (a process group each when the scope cannot start
// processes, as in tests), joins their tools to h's inventory, and checks
// the plan again with the whole inventory, which check.Load had to leave
// pending. Every error is a *RefusedError: a server that does not start, a
// tool name offered by two sources, a plan that names a tool no source
// offers. On error nothing is left running.
func (r *run) startMCP(ctx context.Context, h *runHost) error {
	if len(r.m.Tools.MCP) == 0 {
		return nil
	}
	start := shell.StartProcess
	if ps, ok := h.scope.(capsule.Starter); ok {
		start = func(cmd *exec.Cmd) (*shell.Process, error) { return ps.StartProcess(cmd, "mcp") }
	}
	ms, err := tools.StartServers(ctx, r.m, tools.Launch{Dir: h.task.WorkDir, ManifestDir: r.manifestDir, Start: start, Timeout: tools.MCPStartTimeout})
	if err != nil {
		return &RefusedError{Msg: err.Error()}
	}
	if plan, ds := r.cfg.Plan.WithTools(ms.Schemas()); plan == nil {
		ms.Close()
		return &RefusedError{Diagnostics: ds, Source: r.cfg.Plan.Source()}
	}
	h.tools.Servers = ms
	return nil
}

// ExitStatus returns `planc run`'s exit status for Run's outcome.
func ExitStatus(res *Result, err error) session.ExitCode {
	var re *RefusedError
	if errors.As(err, &re) || res == nil {
		return session.ExitRefused // nothing ran
	}
	return res.Status
}

// needsScope reports whether a plan has a shell or capsule step: those
// need a delegated cgroup v2 scope.
func needsScope(p *ast.Plan) bool {
	for _, s := range p.Steps {
		if s.Kind == ast.KindShell || s.Kind == ast.KindCapsule {
			return true
		}
	}
	return false
}

// hasShell reports whether prog has a shell or capsule step.
func hasShell(prog *ir.Program) bool {
	for i := range prog.Steps {
		if k := prog.Steps[i].Kind; k == ir.KindShell || k == ir.KindCapsule {
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
