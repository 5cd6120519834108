package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/planc/planc/host/protect/envpolicy"
	"github.com/planc/planc/host/sandbox/shim"
	"github.com/planc/planc/internal/procexit"
)

// DefaultGrace is how long a step has between SIGTERM at its bound and
// SIGKILL (S20).
const DefaultGrace = 5 * time.Second

// ShimCommand is the hidden planc subcommand that runs ShimMain: the
// runner starts `Scope.Shim ShimCommand …`.
const ShimCommand = shim.Command

// CapsuleCommand is the hidden planc subcommand a sub-capsule runs as
// (host/capsule's Command): once planc is gone, a scope's guardian waits
// for the processes that run it in a capsule leaf to wind down.
const CapsuleCommand = "__capsule"

// Code is the code of the refusal of a plan that needs a delegated cgroup
// v2 scope when there is none.
const Code = "E-RUN-012"

// ScopeRefusal formats the refusal line for err, an error of OpenScope or
// Probe: "E-RUN-012: no delegated cgroup v2 scope: <why>".
func ScopeRefusal(err error) string {
	return Code + ": no delegated cgroup v2 scope: " + err.Error()
}

// Spec is one shell step to run.
type Spec struct {
	// Argv is the step's words; Argv[0] is the plan's first word, which
	// Run resolves with Resolve (unless Path is set) and is also the
	// argv[0] the program sees.
	Argv []string
	// Path, when set, is the absolute file to run, which the caller
	// resolved from Argv[0] itself (the host: the file Argv[0] resolved
	// to at plan start).
	Path string
	// Dir is the working directory; "" is this process's. A relative Dir
	// is taken from this process's.
	Dir string
	// Env is the environment; nil is this process's under the
	// environment policy (envpolicy.Environ: no variable whose name
	// contains KEY, SECRET, TOKEN, PASSWORD or CREDENTIAL).
	Env []string
	// Timeout is the step's bound; 0 is none. At the bound every process
	// of the step gets SIGTERM, and SIGKILL Grace later.
	Timeout time.Duration
	// Grace is the time between SIGTERM and SIGKILL; 0 is DefaultGrace.
	Grace time.Duration
	// Protect lists absolute paths (files or directories, recursively)
	// the step must not modify, truncate, replace or delete; the paths
	// this process was handed in EnvProtected join them. A path that
	// does not exist when the scope's spawner for this list starts (at the
	// first step that gives it) is not protected. Ignored when the
	// scope's ProtectionOff is not "".
	Protect []string
	// Out, when set, receives standard output and standard error as they
	// arrive (the host: the attempt's kept file), and Result.Output is
	// then nil: planc never holds a step's whole output. A write that
	// fails drops the rest of the output, which is still read to its end,
	// so that the step never blocks on a full pipe; Out says why itself.
	Out io.Writer
}

// Result is the outcome of one Run.
type Result struct {
	// Path is the resolved file that was run, "" when resolution failed.
	Path string
	// Output is standard output and standard error, merged in the order
	// they were written, whole; nil when Spec.Out received them.
	Output []byte
	// ExitCode is the main process's exit status, or -1 when it did not
	// exit normally or never started.
	ExitCode int
	// Signal is the signal that ended the main process, 0 when none did.
	Signal syscall.Signal
	// TimedOut is true when the step reached its bound.
	TimedOut bool
	// Err is nil when the step succeeded; otherwise its text is the step's
	// error: "exit status 3", "killed by signal SIGKILL",
	// "timed out after 10m0s", a resolution or set-up failure.
	Err error
}

// Scope is the plan's scope: every step Run starts runs in it, Kill ends
// them all at once, and Close ends whatever is left and removes the scope.
// Its methods may be called concurrently.
type Scope struct {
	// Shim is the executable re-executed as `Shim __shim …` to set up a
	// step's protection; "" is /proc/self/exe (planc itself). Set it
	// before the first Run.
	Shim string

	mu     sync.Mutex
	killed bool           // Kill was called
	closed bool           // Close was called
	runs   sync.WaitGroup // the Runs in flight
	sys    scopeSys
}

// errKilled is the error of a step ended by Scope.Kill.
var errKilled = errors.New("killed: every process of the plan was ended at once")

// errClosed is the error of a step run after Scope.Close.
var errClosed = errors.New("the plan's scope is closed")

// Resolve returns the file Run would run for word (S14): a word with a
// slash is a path, taken relative to dir; any other word is looked up on
// this process's PATH. The result is absolute.
func Resolve(word, dir string) (string, error) {
	if word == "" {
		return "", errors.New("cannot run an empty command")
	}
	p := word
	if strings.Contains(word, "/") {
		if !filepath.IsAbs(p) && dir != "" {
			p = filepath.Join(dir, p)
		}
		fi, err := os.Stat(p)
		if err != nil {
			return "", fmt.Errorf("cannot run %q: %w", word, unwrapPath(err))
		}
		if fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
			return "", fmt.Errorf("cannot run %q: not an executable file", word)
		}
	} else {
		var err error
		p, err = exec.LookPath(word)
		if err != nil {
			var ee *exec.Error
			if errors.As(err, &ee) {
				err = ee.Err
			}
			return "", fmt.Errorf("cannot run %q: %w", word, err)
		}
	}
	return filepath.Abs(p)
}

// unwrapPath drops a *PathError's op and path, which the caller's message
// already gives.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// step is one started step as the platform tracks it: its main process,
// and the group of all its processes (a leaf cgroup on Linux, a process
// group elsewhere).
type step interface {
	// wait waits for the main process to end.
	wait() (syscall.WaitStatus, error)
	// signal sends sig to every process of the step.
	signal(sig syscall.Signal)
	// kill sends SIGKILL to every process of the step.
	kill()
	// finish runs once the main process has ended: it kills what is
	// left, waits for it to be gone and releases the group. It returns the
	// shim's report of a failed set-up, if any, and the error of the
	// clean-up.
	finish() (setup, err error)
}

// Run runs one shell step to its end and returns its outcome; it never
// leaves a process of the step behind. Cancelling ctx ends the step as its
// bound does (the VM passes a context that a cancelled plan does not
// cancel, so a running step runs to its bound, S22).
func (s *Scope) Run(ctx context.Context, sp Spec) Result {
	r := Result{ExitCode: -1}
	if len(sp.Argv) == 0 {
		r.Err = errors.New("cannot run an empty command")
		return r
	}
	path, err := sp.Path, error(nil)
	if path == "" {
		path, err = Resolve(sp.Argv[0], sp.Dir)
	}
	if err != nil {
		r.Err = err
		return r
	}
	r.Path = path
	if err := s.enter(); err != nil {
		r.Err = err
		return r
	}
	defer s.runs.Done()
	if sp.Env == nil {
		sp.Env = envpolicy.Environ(os.Environ(), nil)
	}
	if sp.Dir, err = filepath.Abs(sp.Dir); err != nil { // "" is the working directory
		r.Err = fmt.Errorf("cannot run %q: %w", sp.Argv[0], err)
		return r
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		r.Err = fmt.Errorf("cannot run %q: %w", sp.Argv[0], err)
		return r
	}
	defer pr.Close()
	// One pipe for standard output and error keeps their arrival order.
	st, err := s.start(sp, path, pw)
	pw.Close()
	if err != nil {
		if uerr := s.ended(); uerr != nil {
			r.Err = uerr // killed or closed while it started
		} else {
			r.Err = fmt.Errorf("cannot run %q: %w", sp.Argv[0], err)
		}
		return r
	}

	if s.ended() != nil {
		// Kill or Close came while the step started, maybe after they
		// killed every process of the scope: this one goes too.
		st.kill()
	}
	out := make(chan []byte, 1)
	go func() {
		if sp.Out == nil {
			b, _ := io.ReadAll(pr)
			out <- b
			return
		}
		copyOut(sp.Out, pr)
		io.Copy(io.Discard, pr) // after a failed write: drain the rest
		out <- nil
	}()
	var timedOut, canceled atomic.Bool
	var ws syscall.WaitStatus
	var werr error
	if sp.Timeout > 0 || ctx.Done() != nil {
		done, watched := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(watched)
			watch(ctx, sp, st, done, &timedOut, &canceled)
		}()
		ws, werr = st.wait()
		close(done)
		<-watched
	} else { // nothing can end the step early: no watch
		ws, werr = st.wait()
	}
	serr, ferr := st.finish()
	// Every writer of the pipe was in the group and is gone: the read
	// ends at EOF. The deadline only guards against a process that left
	// the group while holding the pipe.
	pr.SetReadDeadline(time.Now().Add(2 * time.Second))
	r.Output = <-out

	if werr == nil {
		r.ExitCode = ws.ExitStatus()
		if ws.Signaled() {
			r.Signal = ws.Signal()
		}
	}
	r.TimedOut = timedOut.Load()
	s.mu.Lock()
	killed := s.killed
	s.mu.Unlock()
	var start *startError
	switch {
	case serr != nil:
		r.Err = fmt.Errorf("cannot run %q: %w", sp.Argv[0], serr)
	case errors.As(werr, &start):
		if r.Err = s.ended(); r.Err == nil { // else killed or closed while it started
			r.Err = fmt.Errorf("cannot run %q: %w", sp.Argv[0], start.err)
		}
	case r.TimedOut:
		r.Err = fmt.Errorf("timed out after %v", sp.Timeout)
	case canceled.Load():
		r.Err = fmt.Errorf("canceled: %w", ctx.Err())
	case killed && (werr != nil || r.Signal == syscall.SIGKILL):
		r.Err = errKilled
	case werr != nil:
		r.Err = werr
	case r.Signal != 0 || r.ExitCode != 0:
		r.Err = procexit.Status{Code: r.ExitCode, Signal: r.Signal}.Err()
	}
	if ferr != nil {
		ferr = fmt.Errorf("cleaning up after the step: %w", ferr)
		if r.Err == nil {
			r.Err = ferr
		} else {
			r.Err = fmt.Errorf("%w; %w", r.Err, ferr)
		}
	}
	return r
}

// copyBufs recycles the buffers steps' outputs are copied through.
var copyBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// copyOut copies a step's output from its pipe to w through a pooled
// buffer: io.Copy would allocate one per step (an *os.File's WriteTo
// falls back to it for a writer that is not a socket or a file).
func copyOut(w io.Writer, pr *os.File) {
	bp := copyBufs.Get().(*[]byte)
	io.CopyBuffer(w, struct{ io.Reader }{pr}, *bp)
	copyBufs.Put(bp)
}

// enter counts a Run in, or returns why no step can start in s.
func (s *Scope) enter() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.endedLocked()
	if err == nil {
		s.runs.Add(1)
	}
	return err
}

// ended returns why no step can start in s any more, or nil.
func (s *Scope) ended() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.endedLocked()
}

func (s *Scope) endedLocked() error {
	switch {
	case s.killed:
		return errKilled
	case s.closed:
		return errClosed
	}
	return nil
}

// startError is a step's wait's error when its main process never
// started (the spawner's reply).
type startError struct{ err error }

func (e *startError) Error() string { return e.err.Error() }
func (e *startError) Unwrap() error { return e.err }

// cmdStep is a step whose main process this process started itself.
type cmdStep struct {
	cmd *exec.Cmd
}

func (c cmdStep) wait() (syscall.WaitStatus, error) {
	err := c.cmd.Wait()
	ws, ok := c.cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ok {
		return ws, nil
	}
	return ws, err
}

// watch ends the step at its bound or when ctx is done: SIGTERM to every
// process of the step, SIGKILL grace later, unless done closes first.
func watch(ctx context.Context, sp Spec, g step, done <-chan struct{}, timedOut, canceled *atomic.Bool) {
	var bound <-chan time.Time
	if sp.Timeout > 0 {
		t := time.NewTimer(sp.Timeout)
		defer t.Stop()
		bound = t.C
	}
	select {
	case <-done:
		return
	case <-bound:
		timedOut.Store(true)
	case <-ctx.Done():
		canceled.Store(true)
	}
	g.signal(syscall.SIGTERM)
	grace := sp.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		g.kill()
	}
}
