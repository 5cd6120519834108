package capsule

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/planc/planc/host/sandbox"
	"github.com/planc/planc/host/session"
)

// manifestFD is the index in ExtraFiles of the pipe that carries the
// manifest's bytes to the child: its fd 5.
const manifestFD = 2

// launched is one started sub-capsule, seen from its launcher.
type launched struct {
	cmd      *exec.Cmd
	p        *sandbox.Process
	lifeline *os.File // the write end: closed once the child has exited
	up       chan struct{}
	end      chan status   // its outcome line, if it wrote one
	eof      chan struct{} // closed when the status pipe ends
}

// start makes the delegation directory and starts `planc __capsule` in a
// leaf cgroup of the scope: the objective on its standard input, its
// answer and standard error into the directory, the lifeline's read end
// as fd 3, the status pipe's write end as fd 4, and the pins of the spawn
// and the manifest on fd 5.
func (d *Launcher) start(st Starter, exe string, rc *Found, pins []Pin, id, dir, objective string) (*launched, error) {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, err
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, err
	}
	var files []*os.File
	started := false
	defer func() {
		for _, f := range files {
			f.Close()
		}
		if !started {
			os.RemoveAll(dir) // only what start made: no child ran
		}
	}()
	open := func(name string, flag int) (*os.File, error) {
		f, err := os.OpenFile(filepath.Join(dir, name), flag, 0o644)
		if err == nil {
			files = append(files, f)
		}
		return f, err
	}
	if err := os.WriteFile(filepath.Join(dir, ObjectiveFile), []byte(objective), 0o644); err != nil {
		return nil, err
	}
	in, err := open(ObjectiveFile, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	out, err := open(AnswerFile, os.O_WRONLY|os.O_CREATE|os.O_EXCL)
	if err != nil {
		return nil, err
	}
	errf, err := open(StderrFile, os.O_WRONLY|os.O_CREATE|os.O_EXCL)
	if err != nil {
		return nil, err
	}
	lifeR, lifeW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	files = append(files, lifeR)
	statR, statW, err := os.Pipe()
	if err != nil {
		lifeW.Close()
		return nil, err
	}
	files = append(files, statW)
	// The manifest as the roost read it, on a pipe: the child parses
	// these bytes and never reads the roost's file again. The pins of the
	// spawn go first, in a header block: what the child checks again and
	// runs (Pin).
	srcR, srcW, err := os.Pipe()
	if err != nil {
		lifeW.Close()
		statR.Close()
		return nil, err
	}
	files = append(files, srcR)
	// The child runs in the working directory: every path it gets is
	// absolute.
	roost, _ := filepath.Abs(d.roost.RealDir())
	sessDir, _ := filepath.Abs(dir)
	cmd := &exec.Cmd{
		Path: exe,
		Args: []string{"planc", Command, "--roost", roost, "--session", sessDir, "--manifest-fd", strconv.Itoa(3 + manifestFD), rc.Path},
		Dir:  d.task.WorkDir,
		Env: append(withoutEnv(os.Environ(), EnvSpawnedBy, EnvDelegationID, EnvDelegationDepth, sandbox.EnvProtected),
			EnvSpawnedBy+"="+d.task.Session.Info.ID, EnvDelegationID+"="+id, EnvDelegationDepth+"="+strconv.Itoa(d.depth+1),
			sandbox.ProtectedEnv(d.Protect)),
		Stdin: in, Stdout: out, Stderr: errf,
		ExtraFiles: []*os.File{lifeR, statW, srcR},
	}
	p, err := st.StartProcess(cmd, "capsule")
	if err != nil {
		lifeW.Close()
		statR.Close()
		srcW.Close()
		return nil, err
	}
	go func() {
		// A child that ended early gets nothing: EPIPE.
		if _, err := srcW.Write(encodePins(pins)); err == nil {
			srcW.Write(rc.Src)
		}
		srcW.Close()
	}()
	started = true
	ch := &launched{cmd: cmd, p: p, lifeline: lifeW, up: make(chan struct{}), end: make(chan status, 1), eof: make(chan struct{})}
	go ch.readStatus(statR)
	return ch, nil
}

// readStatus reads the child's status lines until EOF: "up" once it is
// ready for SIGTERM, then its outcome.
func (ch *launched) readStatus(r *os.File) {
	defer close(ch.eof)
	defer r.Close()
	upSent := false
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		var s status
		if json.Unmarshal(sc.Bytes(), &s) != nil {
			continue
		}
		if s.Up && !upSent {
			upSent = true
			close(ch.up)
		}
		if s.Outcome != "" {
			select {
			case ch.end <- s:
			default:
			}
		}
	}
}

// watch waits for the child to exit. It calls started once the child is
// up, or has exited without saying so. When ctx is cancelled the child
// gets SIGTERM as soon as it is up, and its whole leaf SIGKILL grace
// later (or grace after the cancel, when it never comes up). It reports
// whether the cancel came while the child ran; when it returns the child
// and everything in its leaf are gone, and the leaf is removed.
func (ch *launched) watch(ctx context.Context, grace time.Duration, started func()) (canceled bool) {
	isUp, termSent, wrote := false, false, false
	var kill <-chan time.Time
	var timers []*time.Timer
	defer func() {
		for _, t := range timers {
			t.Stop()
		}
	}()
	after := func() <-chan time.Time {
		t := time.NewTimer(grace)
		timers = append(timers, t)
		return t.C
	}
	term := func() {
		if !termSent {
			termSent = true
			ch.cmd.Process.Signal(syscall.SIGTERM)
			kill = after()
		}
	}
	up, done := (<-chan struct{})(ch.up), ctx.Done()
	for {
		select {
		case <-up:
			up, isUp = nil, true
			wrote = true
			started()
			if canceled {
				term()
			}
		case <-done:
			done, canceled = nil, true
			if isUp {
				term()
			} else {
				kill = after() // "as soon as it is up", but not forever
			}
		case <-kill:
			ch.p.Kill()
		case <-ch.p.Done():
			if !wrote {
				started()
			}
			ch.p.ClearNested()
			ch.p.Stop()
			ch.lifeline.Close()
			return canceled
		}
	}
}

// judge returns the delegation's outcome and, unless it completed, why
// not: the child's own word, else how its process ended.
func (ch *launched) judge(dir string) (outcome session.DelegationOutcome, reason string) {
	var s status
	select {
	case s = <-ch.end:
	case <-ch.eof:
		select {
		case s = <-ch.end:
		default:
		}
	case <-time.After(time.Second): // every writer is gone: EOF is near
	}
	exit := ch.p.Err()
	switch {
	case s.Outcome == statusCompleted && exit == nil:
		return session.DelegationCompleted, ""
	case s.Outcome == statusFailed || s.Outcome == statusCanceled:
		reason = s.Reason
		if last := LastLine(filepath.Join(dir, StderrFile)); last != "" && !strings.Contains(last, reason) {
			reason += " (stderr: " + last + ")"
		}
		return session.DelegationFailed, reason
	}
	reason = "its planc ended before it reported an outcome"
	if exit != nil {
		reason = fmt.Sprintf("its planc ended (%v) before it reported an outcome", exit)
	}
	if last := LastLine(filepath.Join(dir, StderrFile)); last != "" {
		reason += ": " + last
	}
	return session.DelegationFailed, reason
}
