package sandbox

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/planc/planc/host/sandbox/cgroups"
	"github.com/planc/planc/host/sandbox/shim"
	"golang.org/x/sys/unix"
)

// scopeSys is the Linux part of a Scope.
type scopeSys struct {
	dir string // the scope's cgroup directory
	seq int    // the last leaf's number

	free     []freeLeaf            // step leaves to reuse, under Scope.mu (leafpool_linux.go)
	perStep  bool                  // a shim per protected step, no spawner (tests)
	lock     string                // the lock to use instead of this process's (tests)
	spawnMu  sync.Mutex            // guards spawners and growing; held while a scope's first spawner starts
	spawners map[string][]*spawner // by protected paths
	growing  map[string]bool       // by protected paths: a spawner starts in the background, or failed to
	grows    sync.WaitGroup        // the background starts (growSpawners)
	spawned  chan<- struct{}       // told of each request put on a spawner's socket (tests)
	guard    *guard                // what ends the scope if this process dies

	protectMemo atomic.Pointer[memo] // the last protected set start cleaned
}

// probeSeq numbers this process's probes.
var probeSeq atomic.Int64

// probePrefix is the name prefix of this process's probe cgroups.
func probePrefix() string { return "planc-probe-" + strconv.Itoa(os.Getpid()) + "-" }

// Probe reports why no scope could be opened here, without creating one
// that stays: it finds this process's cgroup v2 and checks that a child can
// be created there and its cgroup.procs written. Its error's text is the
// <why> of E-RUN-012.
func Probe() error {
	dir, err := cgroups.OwnDir()
	if err != nil {
		return err
	}
	if err := cgroups.CheckDelegated(dir); err != nil {
		return err
	}
	// The name is unique per call, so probes running at once (serve's
	// connections, parallel tests) never collide on one directory.
	child, err := cgroups.MakeChild(dir, probePrefix()+strconv.FormatInt(probeSeq.Add(1), 10))
	if err != nil {
		return err
	}
	return unix.Rmdir(child)
}

// OpenScope creates the cgroup v2 scope name (the host passes
// planc-<session>-<plan n>) as a child of this process's own cgroup, after
// checking that processes can be moved into it. Its error's text is the
// <why> of E-RUN-012 (see ScopeRefusal). It also marks every descriptor of
// this process from 3 up close-on-exec, so that none that it inherited
// reaches a step.
//
// First it sweeps the scopes that dead plancs left in the same cgroup
// (cgroups/sweep_linux.go); then it marks the new scope as this process's and
// starts its guardian (guard_linux.go), which ends the scope if this
// process ends without closing it. The guardian is this executable run
// again as `__shim -cgroup SCOPE -guard`, whatever Scope.Shim says: a
// program that opens scopes runs ShimMain for ShimCommand, as planc and
// testkit.Main do.
func OpenScope(name string) (*Scope, error) {
	if name == "" || name == "." || name == ".." || filepath.Base(name) != name {
		return nil, fmt.Errorf("bad scope name %q", name)
	}
	dir, err := cgroups.OwnDir()
	if err != nil {
		return nil, err
	}
	if err := cgroups.CheckDelegated(dir); err != nil {
		return nil, err
	}
	// Steps (and the guardian) get standard input, output and error only:
	// no descriptor this process inherited without close-on-exec may
	// reach them.
	unix.CloseRange(3, math.MaxUint32, unix.CLOSE_RANGE_CLOEXEC)
	cgroups.Sweep(dir, adopt)
	child, err := cgroups.MakeChild(dir, name)
	if err != nil {
		return nil, err
	}
	// Without the record a sweep leaves the scope alone, which is safe:
	// the guardian still ends it.
	cgroups.RecordOwner(child)
	g, err := startGuard(child, false)
	if err != nil {
		cgroups.Remove(child)
		return nil, fmt.Errorf("starting the guardian of %s: %w", child, err)
	}
	return &Scope{sys: scopeSys{dir: child, guard: g}}, nil
}

// Dir returns the scope's cgroup directory.
func (s *Scope) Dir() string { return s.sys.dir }

// ProtectionOff returns "" when the kernel enforces Spec.Protect, and
// otherwise one line saying that the protection is off and why, for the
// host to print once on standard error. The first call (or the first
// protected step) starts the shim once to learn it; later calls, in any
// scope of this process, return what it learnt.
func (s *Scope) ProtectionOff() string { return protection(s.Shim).off }

// Prepare readies the scope for steps whose Spec.Protect is protect (the
// plan's): it starts the scope's first spawner for them now, at plan
// start, rather than at the first step. While this process has not yet
// learnt whether the kernel lets it protect steps, that spawner's start
// is how it learns (a spawner is the shim set up as the probe would be),
// and the probe runs only when the spawner fails, to say why. With
// nothing to protect it does nothing.
func (s *Scope) Prepare(protect []string) {
	full := cleanProtect(append(inherited(), protect...))
	if len(full) == 0 || s.sys.perStep || s.ended() != nil {
		return
	}
	if err := (shim.Config{Mode: shim.ModeSpawn, RO: full, Cgroup: s.sys.dir, Report: true}).Check(); err != nil {
		return // each step fails with it
	}
	protectMu.Lock()
	if protectDone {
		protectMu.Unlock()
		if s.mode().lock != "" {
			if spw, err := s.spawnerFor(full); err == nil {
				spw.unreserve()
			}
		}
		return
	}
	// protectMu is held: no probe starts while the spawner stands for it.
	m := chosenMode()
	s.sys.spawnMu.Lock()
	spw, err := s.startSpawnerMode(full, s.override(m))
	if err == nil {
		protectHere, protectDone = m, true
		s.addSpawner(full, spw)
	}
	s.sys.spawnMu.Unlock()
	protectMu.Unlock()
	if err != nil {
		protection(s.Shim) // the probe says why, or finds protection on
	}
}

// override returns m with the scope's lock (tests) in place of its own.
func (s *Scope) override(m protectMode) protectMode {
	if m.lock != "" && s.sys.lock != "" {
		m.lock = s.sys.lock
	}
	return m
}

// mode returns how this scope protects its steps.
func (s *Scope) mode() protectMode {
	return s.override(protection(s.Shim))
}

// Kill sends SIGKILL to every process in the scope at once (a second
// SIGINT); the steps running end with the error "killed: …", and later
// Runs fail at once. It does not wait for the processes to be gone.
func (s *Scope) Kill() error {
	s.mu.Lock()
	s.killed = true
	s.mu.Unlock()
	return cgroups.Kill(s.sys.dir)
}

// Close kills whatever is left in the scope, waits for the Runs in flight
// to return (they fail) and their processes to be gone, and removes every
// leaf and the scope; then it ends the scope's guardian (which, when the
// scope could not be removed, tries again). Later Runs fail; calling it
// again does nothing.
func (s *Scope) Close() (err error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	defer func() { s.sys.guard.end(err == nil) }()
	if err := cgroups.Kill(s.sys.dir); err != nil {
		return fmt.Errorf("killing %s: %w", s.sys.dir, err)
	}
	s.runs.Wait()
	s.dropFreeLeaves()
	s.sys.grows.Wait() // a spawner that starts after the kill ends itself
	s.sys.spawnMu.Lock()
	for _, pool := range s.sys.spawners {
		for _, spw := range pool {
			spw.close()
		}
	}
	s.sys.spawnMu.Unlock()
	if err := cgroups.WaitEmpty(s.sys.dir); err != nil {
		return err
	}
	ents, err := os.ReadDir(s.sys.dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	var errs []error
	for _, e := range ents {
		if e.IsDir() {
			errs = append(errs, cgroups.Remove(filepath.Join(s.sys.dir, e.Name())))
		}
	}
	errs = append(errs, cgroups.Remove(s.sys.dir))
	return errors.Join(errs...)
}

// start starts sp's main process, running path, inside a new leaf
// cgroup of the scope, with out as its standard output and error: through
// the scope's spawner when there is something to protect, through a shim
// of its own when the request is too big for the spawner's socket, and
// directly otherwise.
func (s *Scope) start(sp Spec, path string, out *os.File) (step, error) {
	env := os.Getenv(EnvProtected) // what inherited() reads
	protect := s.sys.protectMemo.Load().get(sp.Protect, env)
	if protect == nil {
		protect = cleanProtect(append(inherited(), sp.Protect...))
		s.sys.protectMemo.Store(newMemo(sp.Protect, env, protect))
	}
	// The shim's own checks, before anything starts.
	if err := (shim.Config{RO: protect, Cgroup: s.sys.dir, File: path}).Check(); err != nil {
		return nil, err
	}
	if len(protect) > 0 && s.mode().lock == "" {
		protect = nil
	}
	var spw *spawner
	if len(protect) > 0 && !s.sys.perStep {
		var err error
		if spw, err = s.spawnerFor(protect); err != nil {
			return nil, err
		}
		defer spw.unreserve() // spawn counts the step from then on
	}
	l, err := s.stepLeaf()
	if err != nil {
		return nil, err
	}
	if spw != nil {
		wait, err := spw.spawn(shim.Request{File: path, Argv: sp.Argv, Dir: sp.Dir, Env: sp.Env}, out, l.fd)
		if err == nil {
			l.closeFD()
			l.waitFn, l.spw = wait, spw
			if s.sys.spawned != nil {
				s.sys.spawned <- struct{}{}
			}
			return l, nil
		}
		if !errors.Is(err, errTooBig) {
			l.finish()
			return nil, err
		}
	}
	cmd := &exec.Cmd{Path: path, Args: sp.Argv, Dir: sp.Dir, Env: sp.Env, Stdout: out, Stderr: out}
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Setsid:      true, // no terminal signal reaches the step
		UseCgroupFD: true,
		CgroupFD:    l.fd,
	}
	if len(protect) > 0 {
		if err := s.viaShim(cmd, protect, l); err != nil {
			l.finish()
			return nil, err
		}
		cmd.SysProcAttr = s.mode().attr(l.fd)
	}
	err = cmd.Start()
	l.closeFD()
	if l.reportW != nil {
		l.reportW.Close()
	}
	if err != nil {
		l.finish()
		return nil, err
	}
	l.waitFn = cmdStep{cmd}.wait
	return l, nil
}

// newLeaf creates a leaf cgroup in the scope, named kind-N, and opens it
// for CLONE_INTO_CGROUP.
func (s *Scope) newLeaf(kind string) (*leaf, error) {
	s.mu.Lock()
	s.sys.seq++
	name := kind + "-" + strconv.Itoa(s.sys.seq)
	s.mu.Unlock()
	// The scope passed makeChild's checks, which hold for its leaves: a
	// leaf costs a mkdir.
	dir := s.sys.dir + "/" + name
	if err := unix.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create a cgroup in %s: %w", s.sys.dir, err)
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		unix.Rmdir(dir)
		return nil, fmt.Errorf("opening %s: %w", dir, err)
	}
	return &leaf{dir: dir, fd: fd, events: -1}, nil
}

// viaShim makes cmd run through `Shim __shim` (shim/shim_linux.go), which makes
// protect read-only for the step, with its view of the cgroups rooted at
// the step's leaf l, and then runs it; the shim reports a failed set-up
// on fd 3. The caller sets cmd's SysProcAttr.
func (s *Scope) viaShim(cmd *exec.Cmd, protect []string, l *leaf) error {
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	l.report, l.reportW = r, w
	if err := (shim.Config{Lock: s.mode().lock, RO: protect, Cgroup: l.dir, Report: true}).Wrap(cmd, s.Shim); err != nil {
		r.Close()
		w.Close()
		l.report, l.reportW = nil, nil
		return err
	}
	cmd.ExtraFiles = []*os.File{w}
	return nil
}

// leaf is one step's leaf cgroup, and how to wait for its main process.
type leaf struct {
	dir     string
	fd      int         // dir, open for CLONE_INTO_CGROUP; -1 once closed
	pool    *Scope      // the scope whose pool it may go back to (step leaves), or nil
	events  int         // its cgroup.events, open when pool is set; else -1
	killed  atomic.Bool // a signal or SIGKILL was sent to its processes: never reused
	waitFn  func() (syscall.WaitStatus, error)
	spw     *spawner // the spawner that started the step, or nil
	report  *os.File // read end of the shim's report pipe, or nil
	reportW *os.File // its write end
}

func (l *leaf) closeFD() {
	if l.pool != nil {
		return // kept open while the leaf may be reused
	}
	if l.fd >= 0 {
		unix.Close(l.fd)
		l.fd = -1
	}
}

func (l *leaf) wait() (syscall.WaitStatus, error) { return l.waitFn() }

func (l *leaf) signal(sig syscall.Signal) {
	l.killed.Store(true)
	cgroups.Signal(l.dir, sig)
}

func (l *leaf) kill() {
	l.killed.Store(true)
	cgroups.Kill(l.dir)
}

func (l *leaf) finish() (setup, err error) {
	if l.pool == nil || !l.pool.reuseLeaf(l) {
		l.release()
		err = l.remove()
	}
	if l.report != nil {
		l.reportW.Close()
		if msg, _ := io.ReadAll(l.report); len(msg) > 0 {
			setup = errors.New(string(msg))
		}
		l.report.Close()
	}
	return setup, err
}

// release closes the leaf's descriptors: it will not be reused.
func (l *leaf) release() {
	l.pool = nil
	if l.events >= 0 {
		unix.Close(l.events)
		l.events = -1
	}
	l.closeFD()
}

// remove removes the leaf's cgroup.
func (l *leaf) remove() (err error) {
	if l.spw != nil {
		err = l.spw.removeLeaf(l.dir)
	} else {
		err = cgroups.Remove(l.dir)
	}
	return err
}
