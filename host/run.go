package host

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sync"
	"time"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/check"
	"github.com/planc/planc/host/capenv"
	"github.com/planc/planc/host/capsule"
	"github.com/planc/planc/host/protect"
	"github.com/planc/planc/host/protect/envpolicy"
	"github.com/planc/planc/host/sandbox"
	"github.com/planc/planc/host/session"
	"github.com/planc/planc/host/tools"
	"github.com/planc/planc/internal/sessionfmt"
	"github.com/planc/planc/ir"
	"github.com/planc/planc/parser"
	"github.com/planc/planc/vm"
)

// DefaultShellTimeout is a shell step's bound when neither the manifest
// nor the caller sets one (semantics S20).
const DefaultShellTimeout = 10 * time.Minute

// CodeNoScope is the refusal of a plan that needs a delegated cgroup v2
// scope when there is none.
const CodeNoScope = sandbox.Code

// Codes documents the refusal codes of a run, as parser.Codes documents
// the parser's and check.Rules the checker's: the README's table of codes
// lists all three.
func Codes() []parser.CodeDoc {
	return []parser.CodeDoc{
		{Code: CodeNoScope, Doc: "a plan with a shell or capsule step, or a capsule with MCP servers, is run where planc has no delegated cgroup v2 scope; refused before anything runs (docs/running.md)", Example: `{"id": "t", "shell": "go test ./..."}`},
	}
}

// Config is one `planc run`.
type Config struct {
	// Plan is the plan to run, as Env.Load accepted it. Its text is
	// written to the session and what runs is what is read back from
	// there.
	Plan *check.Plan
	// Env is the capsule the plan runs in (capenv.New): its manifest,
	// the directory the manifest's relative paths start from (Env.Dir; ""
	// is WorkDir) and the file it was read from, which no step and no tool
	// call may change (Env.Path). nil is capenv.Default. The caller has
	// admitted the manifest (Admit).
	Env *capenv.Env
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
	// Spawner, when set, makes what runs each plan's capsule steps
	// instead of the roost directory (a roost on a cluster).
	Spawner func(task *session.Task, m *ast.Manifest) CapsuleSpawner
	// SpawnedBy and DelegationID name the parent session and delegation
	// when this run is a sub-capsule's (RunCapsule); "" at top level.
	SpawnedBy, DelegationID string
	// ParentEnded, when set, closes when a sub-capsule's parent dies: Run
	// writes spawner_ended, ends the plan, and writes no session_end.
	ParentEnded <-chan struct{}
	// AtPlanStart, when set, sees what the plan's allowlisted shell
	// words resolved to at plan start, before any MCP server or step
	// starts; its error refuses the plan. A sub-capsule's run checks them
	// against what its spawn pinned (capsule.CheckResolved).
	AtPlanStart func([]capsule.Resolved) error
	// RedrivePlan, when not 0, makes the run a redrive of plan
	// RedrivePlan of the existing session SessionDir (S25–S28;
	// docs/resume.md: `planc run --resume` and serve's resume-plan are
	// what users call it) instead of a first run of Plan, which is then
	// nil: the plan is read back from its plan file and checked in Env.
	RedrivePlan int

	// probe and open replace sandbox.Probe and sandbox.OpenScope in tests.
	probe func() error
	open  func(name string) (shellScope, error)
}

// probeScope checks that a delegated cgroup v2 scope can be had, without
// keeping one.
func (cfg *Config) probeScope() error {
	if cfg.probe != nil {
		return cfg.probe()
	}
	return sandbox.Probe()
}

// openScope opens the plan's scope.
func (cfg *Config) openScope(name string) (shellScope, error) {
	if cfg.open != nil {
		return cfg.open(name)
	}
	sc, err := sandbox.OpenScope(name)
	if err != nil {
		return nil, err // not a nil *Scope in an interface
	}
	return sc, nil
}

// Run runs one checked plan the way `planc run` does: it makes sure a
// plan with shell or capsule steps (or a manifest with MCP servers) has a
// delegated cgroup v2 scope (E-RUN-012 otherwise, before anything is
// written), opens the session and its trace, writes the plan file, starts
// the MCP servers in the scope and runs what it reads back, keeps every
// step's output and the report (S24), and closes everything. With
// Config.RedrivePlan it redrives a plan instead (redrive.go). Cancelling ctx
// cancels the plan (S22). A *RefusedError means nothing ran (exit 2) and,
// but for a sub-capsule's run, nothing was left: what Run made for the
// plan before it was refused (the session directory, or the plan file in
// a session it reused) is removed, and no trace line is written; a
// refused redrive leaves its session as it was. Any other error is a
// failure of the runtime itself.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.Env == nil {
		cfg.Env = capenv.Default()
	}
	m := cfg.Env.Manifest()
	workDir, err := session.AbsDir(cfg.WorkDir)
	if err != nil {
		return nil, err
	}
	r := &run{cfg: &cfg, m: m, manifestDir: cfg.Env.Dir(), workDir: workDir, checked: cfg.Plan}
	if r.manifestDir == "" {
		r.manifestDir = workDir
	}
	var sess *session.Session
	switch {
	case cfg.RedrivePlan != 0:
		// Everything that may refuse a redrive is looked at before its
		// session's trace gets a line.
		if sess, r.redrive, err = r.prepareRedrive(); err != nil {
			return nil, err
		}
		defer r.redrive.lock.Unlock()
		r.checked = r.redrive.plan
	case cfg.Plan == nil:
		return nil, errors.New("host.Run: no checked plan in Config.Plan")
	}
	// MCP servers run in the plan's scope too (docs/mcp.md).
	r.needScope = needsScope(r.checked.AST()) || len(m.Tools.MCP) > 0
	if r.needScope {
		if err := cfg.probeScope(); err != nil {
			return nil, &RefusedError{Code: CodeNoScope, Msg: scopeRefusal(err)}
		}
	}

	info := session.NewInfo(m.Name, m.Version, cfg.SpawnedBy, cfg.DelegationID)
	var undo func(*session.PlanFile)
	if sess != nil {
		undo = func(*session.PlanFile) {} // a redrive's session and plan file are the first run's
	} else {
		sess, undo, err = openSession(workDir, cfg.SessionDir, info)
	}
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	tr, err := sess.OpenTrace()
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	defer tr.Close()

	r.tr, r.info = tr, info
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
	m           *ast.Manifest // cfg.Env's manifest
	manifestDir string        // cfg.Env's directory, or the working directory
	workDir     string        // cfg.WorkDir, absolute
	checked     *check.Plan   // cfg.Plan, or the redriven plan as checked again
	redrive     *redrive      // nil for a first run
	needScope   bool
	abort       <-chan struct{} // cfg.Abort, or the parent watch's
	tr          *session.Trace
	info        sessionfmt.SessionInfo // what session_start says (begin)
	begun       bool                   // session_start is written (begin)
}

// plan writes the plan file (or takes the redriven one), opens the
// scope, starts the MCP servers and runs the VM, for task (whose Plan it
// sets), holding the plan's lock (S27).
func (r *run) plan(ctx context.Context, task *session.Task) (*Result, error) {
	var prog *ir.Program
	var opts vm.Options
	if rd := r.redrive; rd != nil {
		task.Plan, prog, opts = rd.file, rd.prog, rd.opts
		for _, n := range rd.notes {
			r.notice(n)
		}
	} else {
		lock, err := r.writePlan(task)
		if err != nil {
			return nil, err
		}
		defer lock.Unlock()
		if prog, err = ir.Lower(r.checked); err != nil {
			return nil, fmt.Errorf("lower the checked plan: %w", err)
		}
		opts = vm.Options{PlanFile: task.Plan.Rel, PlanSHA256: hex.EncodeToString(task.Plan.SHA256[:])}
	}
	// From here on every trace line of this run names its plan's number:
	// two runs sharing the session write to one trace at once.
	task.Trace.SetPlan(task.Plan.N)
	opts.MaxParallel = r.cfg.MaxParallel
	opts.Abort = r.abort // a tool call's grace after the cancel ends at once
	pf := task.Plan
	defer task.Close()

	h := &runHost{
		prog:     prog,
		task:     task,
		tools:    &tools.Inventory{Builtins: &tools.Builtins{WorkDir: task.WorkDir, NotesPath: task.NotesPath(), Inputs: r.cfg.Env}},
		observe:  r.cfg.Observe,
		launcher: capsule.NewLauncher(task, r.m, r.cfg.Roost),
	}
	defer h.launcher.Close()
	if r.cfg.Spawner != nil {
		h.remote = r.cfg.Spawner(task, r.m)
		defer h.remote.Close()
	}
	if err := readOnlyLinks(r.m, r.manifestDir); err != nil {
		return nil, &RefusedError{Msg: "capabilities.filesystem.read_only: " + err.Error()}
	}
	for _, n := range readOnlyMissing(r.m, r.manifestDir) {
		r.notice(n)
	}
	// The protected set, taken now, at plan start: the kernel holds it
	// read-only for the steps and the capsules' commands, the built-in
	// tools check what they open against it, and the refusals refuse a
	// step that names it.
	h.protected = newProtectedSet(protectedInput{m: r.m, manifestDir: r.manifestDir, manifestPath: r.cfg.Env.Path(),
		workDir: task.WorkDir, sessionDir: task.Session.Dir, roostDir: h.launcher.RoostDir(), runFiles: h.launcher.RunFiles()})
	h.shell = shellSpec{dir: task.WorkDir, timeout: shellTimeout(r.cfg, r.m), protect: h.protected.paths,
		env: envpolicy.Environ(os.Environ(), ast.EnvMap(r.m.Capabilities.ShellEnv))}
	h.launcher.Protect = h.shell.protect
	if r.cfg.AtPlanStart != nil {
		if err := r.cfg.AtPlanStart(resolvedWords(h.protected)); err != nil {
			return nil, &RefusedError{Msg: err.Error()}
		}
	}
	h.tools.Builtins.Protected = h.protected.toolSet(h.tools.Builtins.NotesPath)
	ro := append(ast.Names(r.m.Capabilities.ReadOnly), h.protected.runtimePaths()...)
	refusals, err := protect.New(protect.Config{ReadOnly: ro, BaseDir: r.manifestDir, Hooks: r.m.Hooks, WorkDir: task.WorkDir})
	if err != nil {
		return nil, &RefusedError{Msg: "capabilities.filesystem.read_only: " + err.Error()}
	}
	h.refusals = refusals
	if r.needScope {
		if r.redrive != nil {
			r.redrive.removeScopes(task)
		}
		sc, err := r.cfg.openScope(scopeName(task, opts.Redrive))
		if err != nil {
			return nil, &RefusedError{Code: CodeNoScope, Msg: scopeRefusal(err)}
		}
		h.scope = sc
		// The first spawner starts now, for a plan with steps to protect
		// (a capsule's command is one too), and tells whether the kernel
		// protects them.
		if p, ok := sc.(interface{ Prepare(protect []string) }); ok && hasShell(prog) {
			p.Prepare(h.shell.protect)
		}
		// Asking starts the shim once: only for a plan with steps to
		// protect.
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
	if opts.Redrive > 0 {
		// The report the newest run kept is set aside under its run's
		// number (S28); with none, the run before was cut short.
		if err := task.Session.SetAsideReport(pf.N, opts.Redrive-1); err != nil {
			r.notice(fmt.Sprintf("the kept report of plan %d could not be set aside: %v", pf.N, err))
		}
	}
	rep, err := vm.Run(ctx, prog, h, opts)
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
	if kerr := keepReport(task, &rep); kerr != nil {
		cerr = errors.Join(cerr, kerr)
	}
	res := &Result{Report: rep, Plan: pf, Status: session.ExitCompleted, Redrive: opts.Redrive}
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
	start := sandbox.StartProcess
	if ps, ok := h.scope.(serverStarter); ok {
		start = func(cmd *exec.Cmd) (*sandbox.Process, error) { return ps.StartServer(cmd, "mcp") }
	} else if ps, ok := h.scope.(capsule.Starter); ok {
		start = func(cmd *exec.Cmd) (*sandbox.Process, error) { return ps.StartProcess(cmd, "mcp") }
	}
	ms, err := tools.StartServers(ctx, r.m, tools.Launch{Dir: h.task.WorkDir, ManifestDir: r.manifestDir, Start: start, Timeout: tools.MCPStartTimeout})
	if err != nil {
		return &RefusedError{Msg: err.Error()}
	}
	if plan, ds := r.cfg.Env.WithMCP(ms.Schemas()).Recheck(r.checked); plan == nil {
		ms.Close()
		return &RefusedError{Diagnostics: ds, Source: r.checked.Source()}
	}
	h.tools.Servers = ms
	return nil
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

// resolvedWords is what the allowlisted shell words resolved to at plan
// start, by word in order: what Config.AtPlanStart sees.
func resolvedWords(s *protectedSet) []capsule.Resolved {
	words := make([]string, 0, len(s.bins))
	for w := range s.bins {
		words = append(words, w)
	}
	slices.Sort(words)
	out := make([]capsule.Resolved, len(words))
	for i, w := range words {
		b := s.bins[w]
		out[i] = capsule.Resolved{Word: w, Path: b.path, Real: b.real, File: b.fi}
	}
	return out
}
