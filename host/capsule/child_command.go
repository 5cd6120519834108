//go:build unix

package capsule

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/host/protect/envpolicy"
	"github.com/planc/planc/host/sandbox"
	"github.com/planc/planc/host/session"
	"github.com/planc/planc/internal/procexit"
)

// command runs a command entrypoint inside this sub-capsule's planc
// (which is in the step's leaf cgroup): the objective on its standard
// input, its standard output the answer. It runs in a process group of its
// own: SIGTERM to this planc is passed on to that group, and whatever the
// group leaves is killed when the command ends.
func (r *child) command(ctx context.Context, objective []byte) session.ExitCode {
	sess, tr, err := r.openSession()
	if err != nil {
		return r.fail(session.ExitRefused, err)
	}
	defer tr.Close()
	r.st.send(status{Up: true})
	// The outcome goes to the launcher only: standard error is the
	// command's, whose last line the launcher adds to a failure's reason.
	end := func(code session.ExitCode, s status) session.ExitCode {
		tr.SessionEnd(code.EndStatus())
		r.st.send(s)
		return code
	}

	argv := r.m.Entrypoint.Command
	// The file the spawn pinned, its links not followed again; by path
	// only when it pinned none (a child started by hand).
	path, args := pinnedCommand(r.pins, argv, r.cfg.WorkDir)
	if noRecheck() {
		path, args = "", argv
	}
	if path == "" {
		path, err = sandbox.Resolve(argv[0], r.manifestDir)
	}
	if err != nil {
		return end(session.ExitFailed, status{Outcome: statusFailed, Reason: "its command: " + err.Error()})
	}
	cmd := &exec.Cmd{
		Path: path, Args: args, Dir: r.cfg.WorkDir,
		Stdin: bytes.NewReader(objective), Stdout: r.cfg.Stdout, Stderr: r.cfg.Stderr,
		Env:         envpolicy.Environ(os.Environ(), ast.EnvMap(r.m.Capabilities.ShellEnv)),
		SysProcAttr: &syscall.SysProcAttr{Setsid: true},
		// A process the command left holding its standard streams must
		// not keep Wait: the group is killed after it anyway.
		WaitDelay: time.Second,
	}
	// It runs as a shell step does: what the parent protects and this
	// capsule's read_only paths are read-only for it (sandbox.Contain).
	ct, err := sandbox.Contain(cmd, r.protectedPaths(sess.Dir))
	if err != nil {
		return end(session.ExitFailed, status{Outcome: statusFailed, Reason: "its command: " + err.Error()})
	}
	// Checked after Contain, which may have probed the kernel for a
	// while: a command the cancel came before is never started.
	if ctx.Err() != nil {
		ct.Started()
		return end(session.ExitCanceled, status{Outcome: statusCanceled, Reason: "it was cancelled before its command started"})
	}
	// The pins once more, right before the command starts.
	if err := r.checkPins(); err != nil {
		ct.Started()
		return end(session.ExitRefused, status{Outcome: statusFailed, Reason: "its command: " + err.Error()})
	}
	err = cmd.Start()
	ct.Started()
	if err != nil {
		return end(session.ExitFailed, status{Outcome: statusFailed, Reason: "its command: " + err.Error()})
	}
	pgid := cmd.Process.Pid
	defer syscall.Kill(-pgid, syscall.SIGKILL) // whatever the command left in its group
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	// A SIGTERM sent before the command runs would reach only its shim,
	// which drops it: until Up, it is remembered and sent then, so no
	// cancel is lost.
	up, termWaits := ct.Up(), false
	term := func() {
		if up == nil {
			syscall.Kill(-pgid, syscall.SIGTERM)
		} else {
			termWaits = true
		}
	}
	var werr error
	canceled, parentGone := false, false
	var kill <-chan time.Time
	ctxDone, ended := ctx.Done(), r.ended
wait:
	for {
		select {
		case werr = <-done:
			break wait
		case <-up:
			up = nil
			if termWaits {
				term()
			}
		case <-ctxDone:
			// The launcher SIGKILLs the whole leaf a grace period later
			// if the command does not end.
			ctxDone, canceled = nil, true
			term()
		case <-ended:
			// Nobody will kill the leaf now: this planc does it.
			ended, parentGone = nil, true
			tr.ParentEnded()
			term()
			t := time.NewTimer(Grace())
			defer t.Stop()
			kill = t.C
		case <-kill:
			kill = nil
			syscall.Kill(-pgid, syscall.SIGKILL)
		}
	}
	if serr := ct.SetupErr(); serr != nil {
		fmt.Fprintf(r.cfg.Stderr, "planc %s: %v\n", sandbox.ShimCommand, serr)
	}
	switch {
	case parentGone:
		return session.ExitCanceled // spawner_ended, and no session_end
	case canceled:
		return end(session.ExitCanceled, status{Outcome: statusCanceled, Reason: "it was cancelled; its command " + procexit.WaitClause(werr)})
	case werr != nil:
		return end(session.ExitFailed, status{Outcome: statusFailed, Reason: fmt.Sprintf("its command %s %s", argv[0], procexit.WaitClause(werr))})
	}
	return end(session.ExitCompleted, status{Outcome: statusCompleted})
}

// protectedPaths is what the command must not write (session.Capsule's
// Protected): this sub-capsule's whole session directory, its manifest's
// read_only paths, the roost and its manifest (sandbox.Contain adds what the parent protects,
// which holds the parent's session, and so this one's, its roost and its
// manifest already).
func (r *child) protectedPaths(sessDir string) []string {
	c := session.Capsule{Manifest: r.m, ManifestDir: r.manifestDir, ManifestPath: r.cfg.Manifest, SessionDir: sessDir, Roost: r.cfg.Roost}
	var out []string
	for _, p := range c.Protected() {
		out = append(out, p.Path)
	}
	return out
}
