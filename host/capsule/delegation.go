package capsule

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/host/sandbox"
	"github.com/planc/planc/host/session"
	"github.com/planc/planc/internal/sessionfmt"
	"github.com/planc/planc/vm"
)

// The files the launcher keeps in a delegation directory beside the
// child's own session files.
const (
	// ObjectiveFile is the task text, the child's standard input.
	ObjectiveFile = "objective.txt"
	// AnswerFile is the child's standard output, the whole answer.
	AnswerFile = "answer.txt"
	// StderrFile is the child's standard error.
	StderrFile = "stderr.txt"
)

// MaxDelegationDepth bounds how deep sub-capsules may spawn sub-capsules:
// a capsule that spawns itself fails a step instead of filling the machine.
const MaxDelegationDepth = 16

// Launcher starts the sub-capsules of one plan's capsule steps: the roost
// they spawn from, and the delegations the cancel ended, whose terminal
// lines BeforeTrace writes at plan_end.
type Launcher struct {
	task  *session.Task
	roost Roost
	// roostWas is whether the roost was a directory when the plan
	// started: a roost made since is the plan's own doing, and nothing is
	// spawned from it.
	roostWas bool
	from     string   // the spawning capsule's name
	allow    []string // its capabilities.spawn.allow
	depth    int      // this session's depth: 0 at top level
	grace    time.Duration
	exe      string // the planc to start as `planc __capsule`; "" is this one
	// Protect is what the plan's steps must not write: handed to each
	// child, whose own steps and command keep it read-only.
	Protect []string

	// What the capsules the plan may spawn would run, read at plan start
	// (reachAtStart): the files, which capsule may spawn which, and the
	// files the kernel cannot hold (spawnGuard).
	runFiles []RunFile
	spawns   map[string][]string
	guards   []runGuard

	ended Ended // the delegations the cancel ended
}

// Ended is the delegations a cancel ended, in the order they ended, whose
// terminal lines are the task's to write after task_canceled: what a
// launcher (this one, or another roost's) keeps for BeforeTrace. The zero
// Ended is ready; it is safe for concurrent use.
type Ended struct {
	mu   sync.Mutex
	list []endedDelegation
}

type endedDelegation struct{ planID, stepID, id string }

// Add records that the cancel ended delegation id of step stepID of plan
// planID.
func (e *Ended) Add(planID, stepID, id string) {
	e.mu.Lock()
	e.list = append(e.list, endedDelegation{planID, stepID, id})
	e.mu.Unlock()
}

// BeforeTrace runs before task's host writes ev: before plan_end of a
// cancelled task (or one whose cancel ended delegations) it writes
// task_canceled naming the delegations the cancel ended, their terminal
// delegation lines, and task_end (docs/trace.md, "Order";
// docs/capsules.md, "Cancel", items 3 and 4).
func (e *Ended) BeforeTrace(task *session.Task, ev vm.Event) {
	if ev.Kind != vm.PlanEnd {
		return
	}
	e.mu.Lock()
	ended := e.list
	e.mu.Unlock()
	if ev.Outcome != vm.Canceled && len(ended) == 0 {
		return
	}
	ids := make([]string, len(ended))
	for i, x := range ended {
		ids[i] = x.id
	}
	id, tr := task.ID(), task.Trace
	tr.TaskCanceled(id, ids)
	for _, x := range ended {
		tr.Delegation(x.planID, x.stepID, x.id, session.DelegationTerminated, session.ReasonTaskCanceled)
	}
	tr.TaskEnd(id, session.TaskEndCanceled)
}

// NewLauncher prepares the capsule steps of task, whose capsule is m:
// they spawn from the roost at dir ("" is the task's working directory's
// roost/), at the depth $PLANC_DELEGATION_DEPTH says this planc runs at.
func NewLauncher(task *session.Task, m *ast.Manifest, roost string) *Launcher {
	if roost == "" {
		roost = filepath.Join(task.WorkDir, DefaultRoostDir)
	}
	if abs, err := filepath.Abs(roost); err == nil {
		roost = abs
	}
	depth, _ := strconv.Atoi(os.Getenv(EnvDelegationDepth))
	r, err := Open(roost)
	d := &Launcher{
		task: task, roost: r, roostWas: err == nil,
		from: m.Name, allow: ast.Names(m.Capabilities.SpawnAllow),
		depth: max(depth, 0), grace: Grace(),
	}
	d.reachAtStart()
	return d
}

// Close releases the roost's descriptor; a nil Launcher has none.
func (d *Launcher) Close() error {
	if d == nil {
		return nil
	}
	return d.roost.Close()
}

// RoostDir returns the roost the capsule steps spawn from, absolute: a
// protected path of the run.
func (d *Launcher) RoostDir() string { return d.roost.Dir }

// delegationID names the delegation of one attempt of a capsule step:
// plan-<n>-<step>-<attempt>, where <step> is the step id made safe for a
// file name as outputs/ does it (sessionfmt.StepFileName). It is unique in
// the session (plan numbers are, and a redrive's attempt numbers go on
// from the earlier runs') and names the directory delegations/<id>/.
func (d *Launcher) delegationID(c vm.Call) string {
	return d.task.ID() + "-" + sessionfmt.StepFileName(c.Step.ID) + "-" + strconv.Itoa(c.Attempt)
}

// Starter is a scope that can start a sub-capsule in a leaf cgroup of its
// own: host/sandbox's *Scope.
type Starter interface {
	StartProcess(cmd *exec.Cmd, kind string) (*sandbox.Process, error)
}

// Unsupported is the error of a capsule step when the plan's scope cannot
// start sub-capsules (a scope that is not host/sandbox's).
const Unsupported = "capsule steps are not supported by this runtime yet"

// Spawn runs one attempt of a capsule step (docs/capsules.md): the roost
// resolves the capsule, a child `planc __capsule` starts in a leaf cgroup
// of the plan's scope (st) with its session in delegations/<id>/, and its
// answer comes back cut to 64 KiB (S20). The whole answer is kept as the
// attempt's output (session.Task.KeepFile), an attempt that started no
// child as an empty one. On the plan's cancel the child gets SIGTERM (once
// it is up) and its leaf SIGKILL a grace period later; the delegation's
// terminal line is then the task's, at plan_end. A nil st fails the step
// with Unsupported.
func (d *Launcher) Spawn(ctx context.Context, st Starter, c vm.Call) (string, error) {
	if d == nil {
		return "", errors.New(Unsupported)
	}
	dir, err := d.spawn(ctx, st, c)
	if dir == "" {
		return d.task.Keep(c.Step.ID, c.Attempt, "", err)
	}
	answer, aerr := d.task.KeepFile(c.Step.ID, c.Attempt, filepath.Join(dir, AnswerFile))
	switch {
	case aerr == nil:
	case err == nil:
		err = fmt.Errorf("its answer: %w", aerr)
	case !errors.Is(aerr, fs.ErrNotExist): // a failed child without an answer says so itself
		err = errors.Join(err, fmt.Errorf("its answer: %w", aerr))
	}
	return answer, err
}

// spawn runs the child of one attempt and returns its delegation
// directory ("" when no child started) and the attempt's error.
func (d *Launcher) spawn(ctx context.Context, st Starter, c vm.Call) (string, error) {
	if st == nil {
		return "", errors.New(Unsupported)
	}
	if !d.roostWas {
		// The kernel protects only what exists when the steps' view is
		// set up: a roost made since could be the plan's own.
		return "", fmt.Errorf("the roost refuses to spawn capsule %q: the roost %s was not a directory when the plan started, "+
			"and a capsule the plan itself could have written is never run; make the roost before the run", c.Step.Target, d.roost.Dir)
	}
	rc, err := d.roost.Resolve(c.Step.Target, d.from, d.allow)
	if err != nil {
		return "", err
	}
	// What the spawn checks, pinned first: the guard then holds the
	// files to what they were at plan start, the pins to what the guard
	// passed, and the child checks the pins again at its start and runs
	// what their links led to (Pin).
	pins := pinsFor(rc, d.task.WorkDir)
	if err := d.spawnGuard(rc.Name); err != nil {
		return "", err
	}
	if err := d.pinsAsAtStart(rc.Name, pins); err != nil {
		return "", err
	}
	if d.depth >= MaxDelegationDepth {
		return "", fmt.Errorf("cannot spawn %q: sub-capsules already nest %d deep, the most planc allows", rc.Name, d.depth)
	}
	exe := d.exe
	if exe == "" {
		if exe, err = selfExecutable(); err != nil {
			return "", fmt.Errorf("cannot spawn %q: cannot find the planc executable: %w", rc.Name, err)
		}
	}
	id := d.delegationID(c)
	dir := filepath.Join(d.task.Session.Dir, sessionfmt.DelegationsDir, id)
	ch, err := d.start(st, exe, rc, pins, id, dir, c.Objective)
	if err != nil {
		return "", fmt.Errorf("cannot spawn %q: %w", rc.Name, err)
	}
	canceled := ch.watch(ctx, d.grace, func() {
		d.task.Trace.DelegationStart(c.PlanID, c.Step.ID, id, rc.Name, rc.Version, ch.p.Pid())
	})
	if canceled {
		// docs/capsules.md, "Cancel": the child has exited, so the
		// launcher writes completion.json; the task writes
		// task_canceled and then this delegation's line (plan_end).
		err := session.WriteCompletion(dir, session.LauncherEnded)
		d.ended.Add(c.PlanID, c.Step.ID, id)
		return dir, errors.Join(errors.New(vm.CapsuleEnded), err)
	}
	// The child exited on its own before the cancel, if any, reached it
	// (watch saw its exit first): this delegation ends with its own
	// outcome and line, and a cancel landing while its answer is judged
	// and kept does not make the step one the cancel ended.
	vm.CapsuleExited(ctx)
	outcome, reason := ch.judge(dir)
	if outcome == session.DelegationCompleted {
		if _, err := os.Stat(filepath.Join(dir, AnswerFile)); err != nil {
			outcome, reason = session.DelegationFailed, "its answer cannot be read: "+err.Error()
		}
	}
	d.task.Trace.Delegation(c.PlanID, c.Step.ID, id, outcome, reason)
	if outcome != session.DelegationCompleted {
		return dir, fmt.Errorf("sub-capsule %s (delegation %s) failed: %s", rc.Name, id, reason)
	}
	return dir, nil
}

// BeforeTrace runs before the host writes e (Ended.BeforeTrace).
func (d *Launcher) BeforeTrace(e vm.Event) {
	if d != nil {
		d.ended.BeforeTrace(d.task, e)
	}
}

// withoutEnv returns env without the variables named.
func withoutEnv(env []string, names ...string) []string {
	out := env[:0:0]
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		keep := true
		for _, n := range names {
			keep = keep && name != n
		}
		if keep {
			out = append(out, kv)
		}
	}
	return out
}

// LastLine returns the last non-empty line of the file at path (its last
// 4 KiB), trimmed to 200 bytes; "" when there is none. A launcher tells
// why a sub-capsule failed with it (its stderr's last words).
func LastLine(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > 4096 {
		f.Seek(fi.Size()-4096, io.SeekStart)
	}
	b, _ := io.ReadAll(io.LimitReader(f, 4096))
	return LastOf(string(b))
}

// LastOf returns the last non-empty line of s, trimmed to 200 bytes.
func LastOf(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if len(last) > 200 {
		last = last[:sessionfmt.CutPoint(last, 200)] + "…"
	}
	return last
}
