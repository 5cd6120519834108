package host

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/host/protect/envpolicy"
	"github.com/planc/planc/host/shell"
)

// runCommandCapsule runs a command entrypoint inside this sub-capsule's
// planc (which is in the step's leaf cgroup): the objective on its
// standard input, its standard output the answer. It runs in a process
// group of its own: SIGTERM to this planc is passed on to that group, and
// whatever the group leaves is killed when the command ends.
func runCommandCapsule(ctx context.Context, cfg *CapsuleConfig, st *statusWriter, m *ast.Manifest, manifestDir string, objective []byte, ended <-chan struct{}) int {
	sess, err := OpenSession(cfg.SessionDir, SessionInfo{Capsule: m.Name, Version: m.Version, SpawnedBy: nullable(cfg.SpawnedBy), DelegationID: nullable(cfg.DelegationID)})
	if err != nil {
		return capsuleFail(cfg, st, ExitRefused, fmt.Errorf("session: %w", err))
	}
	tr, err := OpenTrace(filepath.Join(sess.Dir, TraceFile), sess.Info.ID)
	if err != nil {
		return capsuleFail(cfg, st, ExitRefused, fmt.Errorf("trace: %w", err))
	}
	defer tr.Close()
	tr.SessionStart(m.Name, m.Version, cfg.SpawnedBy, cfg.DelegationID)
	st.send(capsuleStatus{Up: true})
	// The outcome goes to the launcher only: standard error is the
	// command's, whose last line the launcher adds to a failure's reason.
	end := func(status string, code int, s capsuleStatus) int {
		tr.SessionEnd(status)
		st.send(s)
		return code
	}

	argv := m.Entrypoint.Command
	path, err := shell.Resolve(argv[0], manifestDir)
	if err != nil {
		return end(ExitStatusFailed, ExitFailed, capsuleStatus{Outcome: DelegationFailed, Reason: "its command: " + err.Error()})
	}
	if ctx.Err() != nil {
		return end(ExitStatusCanceled, ExitCanceled, capsuleStatus{Outcome: ExitStatusCanceled, Reason: "it was cancelled before its command started"})
	}
	cmd := &exec.Cmd{
		Path: path, Args: append([]string{argv[0]}, argv[1:]...), Dir: cfg.WorkDir,
		Env:   envpolicy.Environ(os.Environ(), ast.EnvMap(m.Capabilities.ShellEnv)),
		Stdin: bytes.NewReader(objective), Stdout: cfg.Stdout, Stderr: cfg.Stderr,
		SysProcAttr: &syscall.SysProcAttr{Setsid: true},
		// A process the command left holding its standard streams must
		// not keep Wait: the group is killed after it anyway.
		WaitDelay: time.Second,
	}
	if err := cmd.Start(); err != nil {
		return end(ExitStatusFailed, ExitFailed, capsuleStatus{Outcome: DelegationFailed, Reason: "its command: " + err.Error()})
	}
	pgid := cmd.Process.Pid
	defer syscall.Kill(-pgid, syscall.SIGKILL) // whatever the command left in its group
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	var werr error
	canceled, spawnerGone := false, false
	var kill <-chan time.Time
	ctxDone := ctx.Done()
wait:
	for {
		select {
		case werr = <-done:
			break wait
		case <-ctxDone:
			// The launcher SIGKILLs the whole leaf a grace period later
			// if the command does not end.
			ctxDone, canceled = nil, true
			syscall.Kill(-pgid, syscall.SIGTERM)
		case <-ended:
			// Nobody will kill the leaf now: this planc does it.
			ended, spawnerGone = nil, true
			tr.SpawnerEnded()
			syscall.Kill(-pgid, syscall.SIGTERM)
			t := time.NewTimer(CapsuleGrace())
			defer t.Stop()
			kill = t.C
		case <-kill:
			kill = nil
			syscall.Kill(-pgid, syscall.SIGKILL)
		}
	}
	switch {
	case spawnerGone:
		return ExitCanceled // spawner_ended, and no session_end
	case canceled:
		return end(ExitStatusCanceled, ExitCanceled, capsuleStatus{Outcome: ExitStatusCanceled, Reason: "it was cancelled; its command " + waitText(werr)})
	case werr != nil:
		return end(ExitStatusFailed, ExitFailed, capsuleStatus{Outcome: DelegationFailed, Reason: fmt.Sprintf("its command %s %s", argv[0], waitText(werr))})
	}
	return end(ExitStatusOK, ExitCompleted, capsuleStatus{Outcome: DelegationCompleted})
}

// waitText says how a command's Wait error ended it: "exited with status
// 3", "was killed by signal SIGKILL".
func waitText(err error) string {
	if err == nil {
		return "exited with status 0"
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return "was killed by signal " + signalName(ws.Signal())
		}
		return fmt.Sprintf("exited with status %d", ee.ExitCode())
	}
	return "failed: " + err.Error()
}

// signalName names sig as SIGTERM does.
func signalName(sig syscall.Signal) string {
	for _, s := range []struct {
		sig  syscall.Signal
		name string
	}{{syscall.SIGTERM, "SIGTERM"}, {syscall.SIGKILL, "SIGKILL"}, {syscall.SIGINT, "SIGINT"}, {syscall.SIGHUP, "SIGHUP"}, {syscall.SIGPIPE, "SIGPIPE"}, {syscall.SIGSEGV, "SIGSEGV"}, {syscall.SIGABRT, "SIGABRT"}} {
		if s.sig == sig {
			return s.name
		}
	}
	return sig.String()
}
