package sandbox

// The guardian: what ends a plan's processes when planc ends without
// closing the plan's scope — SIGKILL, a crash, an exit from a signal
// handler, a step that killed it.
//
// OpenScope starts one guardian per scope, `planc __shim -cgroup SCOPE
// -guard` (ShimMain), as a child of planc in planc's own cgroup: beside
// the scope, not in it, so that neither the plan's own Kill (cgroup.kill
// of the scope) nor anything a step does inside the scope reaches it, and
// so that it can kill the whole scope at once without killing itself. It
// runs in a session of its own (no terminal signal reaches it), ignores
// SIGHUP, SIGINT, SIGQUIT, SIGTERM and SIGPIPE, has /dev/null for its
// standard streams (it keeps no pipe of planc's caller open) and holds
// one descriptor: fd 3, the read end of its lifeline pipe, whose write
// end only planc holds. Its whole life is a read of fd 3. When the read
// ends — planc is gone, whatever the way — it:
//
//  1. marks the scope with the time (xattr user.planc.ended), unless an
//     earlier guardian or a sweep marked it already;
//  2. kills at once every leaf of the scope but the sub-capsules' own
//     (capsule-N: steps, MCP servers) and every process in the scope's
//     own directory (the spawners);
//  3. waits while a sub-capsule's planc (`planc __capsule`) still runs
//     in a capsule leaf: it saw its own lifeline end when planc died,
//     writes spawner_ended and winds down within its grace (5 s); the
//     guardian waits until none runs, or guardWait after the mark;
//  4. kills what is left of the scope with cgroup.kill (setsid'd and
//     double-forked processes included: they are all in the scope's
//     cgroups), waits for it to empty and removes its cgroups, deepest
//     first (a sub-capsule's own scopes included), and exits.
//
// When planc closes the scope itself (Scope.Close), it kills its
// guardian once the scope is gone; when that fails, it closes the
// lifeline instead and lets the guardian try again.
//
// What holds it: steps run in their spawner's or shim's PID namespace
// and see no process outside it, so they can neither signal nor trace
// the guardian, nor planc; they see their cgroups read-only and no cgroup
// above the scope. What does not: a step run without protection (planc
// says when protection is off) runs as planc's user in planc's PID
// namespace and can kill the guardian as it can kill planc; so can an MCP
// server, which planc trusts. Then the sweep of the next planc that opens
// a scope in the same cgroup ends what is left (cgroups/sweep_linux.go).

import (
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/planc/planc/host/sandbox/cgroups"
	"github.com/planc/planc/host/sandbox/shim"
	"golang.org/x/sys/unix"
)

// guardWait bounds how long the scope's sub-capsules may wind down once
// planc is gone before the guardian kills them: their own grace
// (DefaultGrace) and a margin, so that nothing of the plan outlives planc
// by more than 10 s.
const guardWait = DefaultGrace + 2*time.Second

// capsuleLeaf is the name prefix of a sub-capsule's leaf cgroup (the host
// starts `planc __capsule` with StartProcess(cmd, "capsule")).
const capsuleLeaf = "capsule-"

// guard is planc's side of a scope's guardian.
type guard struct {
	cmd      *exec.Cmd
	lifeline *os.File // the write end
}

// startGuard starts the guardian of the scope dir. A guardian started
// with ended set gets a lifeline that has already ended: it ends the
// scope at once (a sweep adopting an orphan).
func startGuard(dir string, ended bool) (*guard, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	args, err := shim.Config{Mode: shim.ModeGuard, Cgroup: dir}.Args("")
	if err != nil {
		r.Close()
		w.Close()
		return nil, err
	}
	cmd := &exec.Cmd{
		Path: args[0], Args: args,
		Dir:         "/",
		ExtraFiles:  []*os.File{r},
		SysProcAttr: &syscall.SysProcAttr{Setsid: true},
	}
	if ended {
		w.Close()
	}
	err = cmd.Start()
	r.Close()
	if err != nil {
		if !ended {
			w.Close()
		}
		return nil, err
	}
	// Its start time, read while it is our unreaped child, tells it from
	// a later process with the same pid.
	if rec, err := cgroups.ProcRecord(cmd.Process.Pid); err == nil {
		unix.Setxattr(dir, cgroups.XattrGuard, []byte(rec), 0)
	}
	g := &guard{cmd: cmd}
	if !ended {
		g.lifeline = w
	}
	return g, nil
}

// end ends the guardian once planc is done with the scope: when the scope
// is gone it is killed and reaped; otherwise its lifeline is closed, so
// that it ends what is left, and it is reaped in the background.
func (g *guard) end(scopeGone bool) {
	if g == nil {
		return
	}
	if scopeGone {
		g.cmd.Process.Kill() // our unreaped child: the pid is its own
		g.cmd.Wait()
		g.lifeline.Close()
		return
	}
	g.lifeline.Close()
	go g.cmd.Wait()
}

// ShimMain is `planc __shim`, with the arguments after __shim: the
// shim's child side (shim.Main), which serves the guardian's mode with
// serveGuard.
func ShimMain(args []string) int { return shim.Main(args, serveGuard) }

// serveGuard is the guardian's side (`planc __shim -cgroup SCOPE
// -guard`): it waits for its lifeline (fd 3) to end, then ends the scope.
func serveGuard(scope string) int {
	signal.Ignore(unix.SIGHUP, unix.SIGINT, unix.SIGQUIT, unix.SIGTERM, unix.SIGPIPE)
	buf := make([]byte, 512)
	for {
		n, err := unix.Read(shim.FDReport, buf)
		if err == unix.EINTR || (err == nil && n > 0) {
			continue
		}
		break
	}
	if err := endScope(scope); err != nil {
		return 1
	}
	return 0
}

// endScope does a guardian's work once planc is gone: steps 1 to 4 of
// the comment above.
func endScope(dir string) error {
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return nil // planc removed it
	}
	deadline := cgroups.MarkEnded(dir).Add(guardWait)
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.IsDir() && !strings.HasPrefix(e.Name(), capsuleLeaf) {
			cgroups.Kill(filepath.Join(dir, e.Name()))
		}
	}
	cgroups.Signal(dir, unix.SIGKILL) // the spawners, which live in the scope itself
	for windingDown(dir) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	return cgroups.Remove(dir)
}

// windingDown reports whether a sub-capsule's planc still runs in one of
// the capsule leaves of the scope dir: a process directly in the leaf
// (its own scopes are beneath) whose first argument is CapsuleCommand.
func windingDown(dir string) bool {
	leaves, _ := filepath.Glob(filepath.Join(dir, capsuleLeaf+"*"))
	for _, l := range leaves {
		b, err := os.ReadFile(filepath.Join(l, "cgroup.procs"))
		if err != nil {
			continue
		}
		for f := range strings.FieldsSeq(string(b)) {
			cmdline, err := os.ReadFile("/proc/" + f + "/cmdline")
			if err != nil {
				continue
			}
			if args := strings.Split(string(cmdline), "\x00"); len(args) > 1 && args[1] == CapsuleCommand {
				return true
			}
		}
	}
	return false
}

// adopt takes the scope dir, which the sweep found without its planc and
// guardian, when a sub-capsule's planc still winds down in it: a new
// guardian, whose lifeline has already ended, gives the sub-capsules what
// is left of their grace and then ends the scope.
func adopt(dir string) bool {
	if !windingDown(dir) {
		return false
	}
	cgroups.MarkEnded(dir)
	if g, err := startGuard(dir, true); err == nil {
		go g.cmd.Wait()
	}
	return true
}
