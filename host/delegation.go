package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/host/shell"
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

// delegations is one plan's capsule steps: the roost they spawn from, and
// the delegations the cancel ended, which the task closes at plan_end.
type delegations struct {
	roost   Roost
	spawner string   // the spawning capsule's name
	allow   []string // its capabilities.spawn.allow
	depth   int      // this session's depth: 0 at top level
	session *Session
	planN   int
	workDir string
	trace   *Trace
	grace   time.Duration
	exe     string   // the planc to start as `planc __capsule`; "" is this one
	protect []string // what the plan's steps must not write: handed to the child

	mu    sync.Mutex
	ended []endedDelegation // ended by the cancel, in the order they ended
}

// endedDelegation is a delegation the cancel ended: its terminal line is
// the task's to write, after task_canceled.
type endedDelegation struct{ planID, stepID, id string }

// newDelegations prepares the capsule steps of plan n of sess.
func newDelegations(cfg *Config, m *ast.Manifest, workDir string, sess *Session, n int, tr *Trace) *delegations {
	roost := cfg.Roost
	if roost == "" {
		roost = filepath.Join(workDir, DefaultRoostDir)
	}
	depth, _ := strconv.Atoi(os.Getenv(EnvDelegationDepth))
	return &delegations{
		roost: Roost{Dir: roost}, spawner: m.Name, allow: ast.Names(m.Capabilities.SpawnAllow),
		depth: max(depth, 0), session: sess, planN: n, workDir: workDir, trace: tr, grace: CapsuleGrace(),
	}
}

// TaskID names the task running plan n of a session in task_canceled and
// task_end: "plan-<n>". A `planc run` is one submit-plan call, so its task
// and its plan file share the number.
func TaskID(n int) string { return "plan-" + strconv.Itoa(n) }

// delegationID names the delegation of one attempt of a capsule step:
// plan-<n>-<step>-<attempt>, where <step> is the step id made safe for a
// file name as outputs/ does it. It is unique in the session (plan numbers
// are) and names the directory delegations/<id>/.
func (d *delegations) delegationID(c vm.Call) string {
	step := strings.TrimSuffix(outputName(c.Step.ID, c.Index), ".txt")
	return TaskID(d.planN) + "-" + step + "-" + strconv.Itoa(c.Attempt)
}

// processStarter is a scope that can start a sub-capsule in a leaf cgroup
// of its own: host/shell's *Scope.
type processStarter interface {
	StartProcess(cmd *exec.Cmd, kind string) (*shell.Process, error)
}

// spawn runs one attempt of a capsule step (runtime.md, "Capsules, the
// roost and delegations"): the roost resolves the capsule, a child `planc
// __capsule` starts in a leaf cgroup of the plan's scope with its session
// in delegations/<id>/, and its answer comes back cut to 64 KiB (S20). On
// the plan's cancel the child gets SIGTERM (once it is up) and its leaf
// SIGKILL a grace period later; the delegation's terminal line is then the
// task's, at plan_end.
func (d *delegations) spawn(ctx context.Context, scope shellScope, c vm.Call) (string, error) {
	starter, ok := scope.(processStarter)
	if d == nil || !ok {
		return "", errors.New(CapsuleUnsupported)
	}
	rc, err := d.roost.Resolve(c.Step.Target, d.spawner, d.allow)
	if err != nil {
		return "", err
	}
	if d.depth >= MaxDelegationDepth {
		return "", fmt.Errorf("cannot spawn %q: sub-capsules already nest %d deep, the most planc allows", rc.Name, d.depth)
	}
	exe := d.exe
	if exe == "" {
		if exe, err = os.Executable(); err != nil {
			return "", fmt.Errorf("cannot spawn %q: cannot find the planc executable: %w", rc.Name, err)
		}
	}
	id := d.delegationID(c)
	dir := filepath.Join(d.session.Dir, DelegationsDir, id)
	ch, err := d.start(starter, exe, rc, id, dir, c.Objective)
	if err != nil {
		return "", fmt.Errorf("cannot spawn %q: %w", rc.Name, err)
	}
	canceled := ch.watch(ctx, d.grace, func() {
		d.trace.DelegationStart(c.PlanID, c.Step.ID, id, rc.Name, rc.Version, ch.p.Pid())
	})
	answer, aerr := d.answer(dir)
	if canceled || ctx.Err() != nil {
		// The seed's numbered list: the child has exited, so the
		// launcher writes completion.json; the task writes
		// task_canceled and then this delegation's line (plan_end).
		err := writeCompletion(dir, launcherEnded)
		d.mu.Lock()
		d.ended = append(d.ended, endedDelegation{c.PlanID, c.Step.ID, id})
		d.mu.Unlock()
		return answer, errors.Join(errors.New(vm.CapsuleEnded), err)
	}
	outcome, reason := ch.judge(dir)
	if aerr != nil && outcome == DelegationCompleted {
		outcome, reason = DelegationFailed, aerr.Error()
	}
	d.trace.Delegation(c.PlanID, c.Step.ID, id, outcome, reason)
	if outcome != DelegationCompleted {
		return answer, fmt.Errorf("sub-capsule %s (delegation %s) failed: %s", rc.Name, id, reason)
	}
	return answer, nil
}

// answer returns the child's answer from answer.txt, cut at 64 KiB and
// marked when longer (S20); the file keeps it whole.
func (d *delegations) answer(dir string) (string, error) {
	path := filepath.Join(dir, AnswerFile)
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("its answer cannot be read: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("its answer cannot be read: %w", err)
	}
	buf := make([]byte, OutputLimit+utf8.UTFMax)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return "", fmt.Errorf("its answer cannot be read: %w", err)
	}
	s := string(buf[:n])
	if fi.Size() <= OutputLimit {
		return s, nil
	}
	return s[:cutPoint(s, OutputLimit)] + fmt.Sprintf("\n[cut: %d bytes in all; whole text at %s]", fi.Size(), shownPath(d.workDir, path)), nil
}

// beforeTrace runs before the host writes e: before plan_end of a
// cancelled task it writes task_canceled naming the delegations the
// cancel ended, their terminal delegation lines, and task_end
// (runtime.md's order; the seed's numbered list, items 3 and 4).
func (d *delegations) beforeTrace(e vm.Event) {
	if d == nil || e.Kind != vm.PlanEnd {
		return
	}
	d.mu.Lock()
	ended := d.ended
	d.mu.Unlock()
	if e.Outcome != vm.Canceled && len(ended) == 0 {
		return
	}
	ids := make([]string, len(ended))
	for i, x := range ended {
		ids[i] = x.id
	}
	task := TaskID(d.planN)
	d.trace.TaskCanceled(task, ids)
	for _, x := range ended {
		d.trace.Delegation(x.planID, x.stepID, x.id, DelegationTerminated, ReasonTaskCanceled)
	}
	d.trace.TaskEnd(task, ExitStatusCanceled)
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

// lastLine returns the last non-empty line of the file at path (its last
// 4 KiB), trimmed to 200 bytes; "" when there is none.
func lastLine(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > 4096 {
		f.Seek(fi.Size()-4096, io.SeekStart)
	}
	b, _ := io.ReadAll(io.LimitReader(f, 4096))
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if len(last) > 200 {
		last = last[:cutPoint(last, 200)] + "…"
	}
	return last
}
