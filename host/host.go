package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/planc/planc/host/capsule"
	"github.com/planc/planc/host/protect"
	"github.com/planc/planc/host/sandbox"
	"github.com/planc/planc/host/session"
	"github.com/planc/planc/host/tools"
	"github.com/planc/planc/ir"
	"github.com/planc/planc/vm"
)

// runHost is planc run's vm.Host for one plan: built-in and MCP tools,
// shell steps in the plan's cgroup scope, the step refusals, and the
// session's trace.
type runHost struct {
	prog     *ir.Program
	task     *session.Task
	tools    *tools.Inventory
	refusals refuser // the step refusals; nil: nothing to refuse
	scope    shellScope
	shell    shellSpec
	// protected is the run's protected set, taken at plan start.
	protected *protectedSet
	observe   func(*ir.Program, vm.Event)
	// launcher runs the capsule steps; remote, when set, runs them
	// instead (Config.Spawner).
	launcher *capsule.Launcher
	remote   CapsuleSpawner
}

// CapsuleSpawner runs a plan's capsule steps elsewhere than in its scope:
// a roost on a Kubernetes cluster (host/capsule/k8sroost's *Launcher).
type CapsuleSpawner interface {
	// Spawn runs one attempt of a capsule step.
	Spawn(ctx context.Context, c vm.Call) (string, error)
	// BeforeTrace runs before each event is traced (task_canceled …
	// task_end before plan_end).
	BeforeTrace(e vm.Event)
	// Close ends what it holds for the plan.
	Close() error
}

// refuser is the step refusal check: host/protect's *Checker.
type refuser interface {
	Tool(tool string, input json.RawMessage, info protect.ToolInfo) *protect.Refusal
	Shell(argv []string, commandLine string) *protect.Refusal
}

// shellScope runs shell steps inside the plan's delegated cgroup v2 scope:
// host/sandbox's *Scope.
type shellScope interface {
	Run(ctx context.Context, sp sandbox.Spec) sandbox.Result
	// Kill ends every process in the scope at once.
	Kill() error
	// Close removes the scope once nothing runs in it.
	Close() error
	// ProtectionOff is "" when the kernel protects Spec.Protect, else one
	// line saying why not.
	ProtectionOff() string
}

// shellSpec is what every shell step of a plan shares.
type shellSpec struct {
	dir     string        // the working directory
	timeout time.Duration // the bound (S20)
	protect []string      // absolute paths no step may write under
	env     []string      // the environment (envpolicy.Environ)
}

var _ vm.Host = (*runHost)(nil)

// Refuse implements vm.Host: the read_only and hook refusals, each with
// its trace line.
func (h *runHost) Refuse(_ context.Context, c vm.Call) error {
	var r *protect.Refusal
	var info protect.ToolInfo
	if c.Step.Kind == ir.KindTool {
		info = h.tools.Info(c.Step.Target)
	}
	switch {
	case h.refusals == nil:
	case c.Step.Kind == ir.KindTool:
		r = h.refusals.Tool(c.Step.Target, c.Input, info)
	case c.Step.Kind == ir.KindShell:
		r = h.refusals.Shell(c.Step.Argv, c.Step.Target)
	}
	if r == nil && info.Builtin {
		// A write the path check lets pass may still land on a protected
		// file: through a hard link made before the plan started.
		if pe := h.tools.Builtins.Refuses(c.Step.Target, c.Input); pe != nil {
			path := pe.Path
			if path == "" {
				path = pe.Protected
			}
			h.task.Trace.ProtectedPathDenied(c.PlanID, c.Step.ID, path)
			return pe
		}
	}
	if r == nil {
		return nil
	}
	if r.Kind == protect.CallDenied {
		h.task.Trace.CallDenied(c.PlanID, c.Step.ID, r.Hook, r.On)
		return errors.New(r.Message)
	}
	h.task.Trace.ProtectedPathDenied(c.PlanID, c.Step.ID, r.Path)
	if what, ok := h.protected.runtime(r.ReadOnly); ok {
		// Protected by the runtime, not by a read_only entry the
		// capsule could drop.
		under := fmt.Sprintf(", under %q", r.ReadOnly)
		if r.Path == r.ReadOnly {
			under = ""
		}
		return fmt.Errorf("refused: step writes %q%s (%s), which no step may change; write elsewhere", r.Path, under, what)
	}
	return errors.New(r.Message)
}

// CallTool implements vm.Host with the MCP servers' tools and the
// built-in tools.
func (h *runHost) CallTool(ctx context.Context, c vm.Call) (string, error) {
	out, err := h.tools.Call(tools.WithStep(ctx, c.PlanID, c.Step.ID), c.Step.Target, c.Input)
	return h.task.Keep(c.Step.ID, c.Attempt, out, err)
}

// RunShell implements vm.Host: the step runs in a leaf cgroup of the
// plan's scope.
func (h *runHost) RunShell(ctx context.Context, c vm.Call) (string, error) {
	if h.scope == nil {
		return "", errors.New("no cgroup scope is open for shell steps")
	}
	sp := sandbox.Spec{Argv: c.Step.Argv, Dir: h.shell.dir, Timeout: h.shell.timeout, Protect: h.shell.protect, Env: h.shell.env}
	if len(sp.Argv) > 0 {
		// What an allowed word resolved to at plan start is protected:
		// the step runs that very file, or is refused.
		path, err := h.protected.command(sp.Argv[0], sp.Dir)
		if err != nil {
			return h.task.Keep(c.Step.ID, c.Attempt, "", err)
		}
		sp.Path = path
	}
	// The output streams to its kept file; planc holds its first 64 KiB.
	sink := h.task.Sink(c.Step.ID, c.Attempt)
	sp.Out = sink
	r := h.scope.Run(ctx, sp)
	sink.Write(r.Output) // a scope that returns the output instead
	return sink.Close(r.Err)
}

// WholeOutput implements vm.WholeOutputs: a reference or a condition
// reads a step's whole output, up to 16 MiB, from its kept file when its
// result carried it cut (S20).
func (h *runHost) WholeOutput(index, attempt int, text string) (string, error) {
	return h.task.WholeOutput(h.prog.Steps[index].ID, attempt, text)
}

// SpawnCapsule implements vm.Host: the roost resolves the capsule and it
// runs as a sub-capsule in a leaf cgroup of the plan's scope (host/capsule).
func (h *runHost) SpawnCapsule(ctx context.Context, c vm.Call) (string, error) {
	if h.remote != nil {
		return h.remote.Spawn(ctx, c)
	}
	st, _ := h.scope.(capsule.Starter)
	return h.launcher.Spawn(ctx, st, c)
}

// Trace implements vm.Host: the event goes to trace.jsonl, then to the
// observer (the live view).
func (h *runHost) Trace(e vm.Event) {
	if h.remote != nil {
		h.remote.BeforeTrace(e)
	}
	h.launcher.BeforeTrace(e) // task_canceled … task_end before plan_end
	h.task.Trace.Event(e)
	if h.observe != nil {
		h.observe(h.prog, e)
	}
}
