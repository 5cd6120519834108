package sandbox

// The spawner: a `planc __shim -spawn`, already in the namespaces and
// under the restrictions that the shim sets up (shim/shim_linux.go), which
// starts each protected step as its own child. It spares each step a
// re-exec of planc and the set-up, which would be most of what a step
// costs: the set-up is per scope, not per step. A scope runs one spawner
// per set of protected paths, and up to maxSpawners while steps start in
// parallel (spawnerFor): forking a step waits until it has exec'd, so one
// spawner starts one step at a time. Each is the same shim, set up the
// same way, process 1 of a PID namespace of its own: steps of different
// spawners do not see each other's processes.
//
// It is cloned into the scope's own directory, where its cgroup namespace
// (and so its steps') is rooted, and stays there: moving a process into
// another cgroup is a migration, which waits for an RCU grace period
// (up to ~15 ms on a VM), and a clone into a leaf with a new cgroup
// namespace would root the namespace at that leaf, outside which the
// spawner could not clone its steps. The scope enables no controller for
// its children, so it may hold processes beside its leaves; the guardian
// kills the processes of the scope's own directory with the leaves'
// (guard_linux.go). It talks over a SOCK_SEQPACKET
// socket pair (its fd 3), in the compact format of shim/spawnproto_linux.go: a
// request is one message with two descriptors (the step's output pipe and
// its leaf cgroup, into which the spawner clones the step with
// CLONE_INTO_CGROUP); a reply message holds one or more replies: the
// spawner's readiness (ID 0), then per request one, either why the step
// did not start or, once it has ended, its wait status. The runner does
// not wait for the start: the step's wait returns either.

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/planc/planc/host/sandbox/cgroups"
	"github.com/planc/planc/host/sandbox/shim"
	"golang.org/x/sys/unix"
)

// errTooBig is a request too big for the spawner's socket.
var errTooBig = errors.New("request too big for the spawner")

// spawner is the runner's side of one spawner process.
type spawner struct {
	fd  int // our end of the socket
	cmd *exec.Cmd

	mu      sync.Mutex
	next    uint64
	waits   map[uint64]chan shim.Reply // by request id
	pending int                        // handed out by spawnerFor, not yet spawned (reserve)
	err     error                      // why the spawner is gone, once it is
	done    chan struct{}              // closed when the reader has ended
	once    sync.Once

	envMemo atomic.Pointer[memo] // the last environment spawn deduplicated
}

// maxSpawners bounds the spawners a scope runs for one set of protected
// paths: half of GOMAXPROCS, from 1 to 4. A spawner's start costs a few
// milliseconds of CPU, and the steps it starts need the cores as much: on
// two cores a second spawner made plans of 2 to 200 `true` steps slower,
// by up to 10 ms (bench/analysis.md).
func maxSpawners() int { return max(1, min(runtime.GOMAXPROCS(0)/2, 4)) }

// spawnerFor returns a spawner of the scope for protect: one that is not
// busy starting other steps, the one with the fewest steps in flight among
// those. A spawner starts one step at a time (its fork waits until the
// step has exec'd), and it is busy while requests wait on its socket,
// unread: when every spawner is, and there are fewer than maxSpawners,
// one more starts in the background (growSpawners), and the step goes to
// the least loaded one meanwhile, rather than wait the milliseconds of a
// start. Steps in flight do not make a spawner busy: it waits for them in
// poll. Each spawner is a shim of its own, set up by the same path as the
// first: its restrictions are the same by construction, and as process 1
// of its own PID namespace it reaps its own orphans. With none that
// serves, the step waits for one to start.
func (s *Scope) spawnerFor(protect []string) (*spawner, error) {
	key := spawnersKey(protect)
	s.sys.spawnMu.Lock()
	defer s.sys.spawnMu.Unlock()
	if err := s.ended(); err != nil {
		return nil, err
	}
	pool := s.sys.spawners[key][:0] // the ones that still serve
	// Whether a spawner is busy matters only to choose among several, or
	// to grow: one spawner with no room for another is asked nothing.
	ask := len(s.sys.spawners[key]) > 1 || len(s.sys.spawners[key]) < maxSpawners()
	var best *spawner
	bestLoad, bestBusy := 0, false
	for _, spw := range s.sys.spawners[key] {
		load, err := spw.load()
		if err != nil {
			spw.close()
			continue
		}
		pool = append(pool, spw)
		busy := ask && spw.busy()
		if best == nil || (bestBusy && !busy) || (busy == bestBusy && load < bestLoad) {
			best, bestLoad, bestBusy = spw, load, busy
		}
	}
	if pool == nil {
		delete(s.sys.spawners, key)
	} else {
		s.sys.spawners[key] = pool
	}
	if best != nil {
		if bestBusy && len(pool) < maxSpawners() {
			s.growSpawners(key, protect)
		}
		best.reserve()
		return best, nil
	}
	spw, err := s.startSpawner(protect)
	if err != nil {
		return nil, err
	}
	s.addSpawner(protect, spw)
	spw.reserve()
	return spw, nil
}

// busy reports whether requests wait on the spawner's socket, unread: it
// is starting another step. A message sent on a Unix socket counts in its
// sender's send queue (SIOCOUTQ) until the receiver has read it.
func (spw *spawner) busy() bool {
	n, err := unix.IoctlGetInt(spw.fd, unix.SIOCOUTQ)
	return err == nil && n > 0
}

// growSpawners starts one more spawner for protect in the background,
// unless one is starting already or a start for it failed; spawnMu is
// held. The new spawner joins the pool once it is ready, unless the scope
// ended meanwhile; Close waits for the start.
func (s *Scope) growSpawners(key string, protect []string) {
	if s.sys.growing[key] {
		return
	}
	if s.sys.growing == nil {
		s.sys.growing = map[string]bool{}
	}
	s.sys.growing[key] = true
	s.sys.grows.Add(1)
	go func() {
		defer s.sys.grows.Done()
		spw, err := s.startSpawner(protect)
		s.sys.spawnMu.Lock()
		defer s.sys.spawnMu.Unlock()
		// A failed start is not tried again: the pool serves as it is.
		s.sys.growing[key] = err != nil
		if err != nil {
			return
		}
		if s.ended() != nil {
			spw.close()
			return
		}
		s.addSpawner(protect, spw)
	}()
}

// spawnersKey is the key of the spawners that protect protect.
func spawnersKey(protect []string) string { return strings.Join(protect, "\x00") }

// addSpawner adds spw to the scope's spawners for protect; spawnMu is held.
func (s *Scope) addSpawner(protect []string, spw *spawner) {
	if s.sys.spawners == nil {
		s.sys.spawners = map[string][]*spawner{}
	}
	key := spawnersKey(protect)
	s.sys.spawners[key] = append(s.sys.spawners[key], spw)
}

// reserve counts a step that spawnerFor handed the spawner and that has
// not reached spawn yet, so that steps arriving together are spread over
// the pool instead of all finding the same one with the fewest. The
// caller ends the reservation with unreserve once the step was spawned,
// or was not.
func (spw *spawner) reserve() {
	spw.mu.Lock()
	spw.pending++
	spw.mu.Unlock()
}

// unreserve ends a reservation.
func (spw *spawner) unreserve() {
	spw.mu.Lock()
	spw.pending--
	spw.mu.Unlock()
}

// startSpawner starts a spawner for protect and waits until it is ready.
func (s *Scope) startSpawner(protect []string) (*spawner, error) {
	return s.startSpawnerMode(protect, s.mode())
}

// startSpawnerMode is startSpawner with m's lock and namespaces.
func (s *Scope) startSpawnerMode(protect []string, m protectMode) (*spawner, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	unix.SetsockoptInt(fds[0], unix.SOL_SOCKET, unix.SO_SNDBUFFORCE, shim.MaxMessage)
	theirs := os.NewFile(uintptr(fds[1]), "spawner")
	scopeFD, err := unix.Open(s.sys.dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		theirs.Close()
		unix.Close(fds[0])
		return nil, fmt.Errorf("opening %s: %w", s.sys.dir, err)
	}
	args, err := shim.Config{Mode: shim.ModeSpawn, Lock: m.lock, RO: protect, Cgroup: s.sys.dir, Report: true}.Args(s.Shim)
	if err != nil {
		theirs.Close()
		unix.Close(fds[0])
		unix.Close(scopeFD)
		return nil, err
	}
	cmd := &exec.Cmd{Path: args[0], Args: args, ExtraFiles: []*os.File{theirs}, SysProcAttr: m.attr(scopeFD)}
	err = cmd.Start()
	theirs.Close()
	unix.Close(scopeFD)
	spw := &spawner{fd: fds[0], cmd: cmd, waits: map[uint64]chan shim.Reply{}, done: make(chan struct{})}
	if err != nil {
		unix.Close(fds[0])
		return nil, fmt.Errorf("starting the spawner: %w", err)
	}
	var ready shim.Reply
	buf := make([]byte, 64<<10)
	err = spw.read(buf, func(rep shim.Reply) { ready = rep })
	if err == nil && ready.Kind == shim.ReplyFailed {
		err = errors.New(ready.Err)
	}
	if err != nil {
		close(spw.done)
		spw.close()
		return nil, err
	}
	go spw.readReplies(buf)
	return spw, nil
}

// read reads one message of replies and calls each with every one.
func (spw *spawner) read(buf []byte, each func(shim.Reply)) error {
	for {
		n, err := unix.Read(spw.fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fmt.Errorf("the spawner's socket: %w", err)
		}
		if n == 0 {
			return errors.New("the spawner of protected steps ended")
		}
		return shim.DecodeReplies(buf[:n], each)
	}
}

// readReplies hands each reply to the step waiting for it, until the
// spawner is gone; then every waiting step learns why.
func (spw *spawner) readReplies(buf []byte) {
	var err error
	hand := func(rep shim.Reply) {
		spw.mu.Lock()
		ch := spw.waits[rep.ID]
		delete(spw.waits, rep.ID)
		spw.mu.Unlock()
		if ch != nil {
			ch <- rep
		}
	}
	for err == nil {
		err = spw.read(buf, hand)
	}
	spw.mu.Lock()
	spw.err = err
	for id, ch := range spw.waits {
		close(ch)
		delete(spw.waits, id)
	}
	spw.mu.Unlock()
	close(spw.done)
}

// load returns the number of steps in flight on the spawner, those
// handed to it and not yet spawned included, or why it is gone.
func (spw *spawner) load() (int, error) {
	spw.mu.Lock()
	defer spw.mu.Unlock()
	return len(spw.waits) + spw.pending, spw.err
}

// gone returns why the spawner is gone, or nil while it serves.
func (spw *spawner) gone() error {
	spw.mu.Lock()
	defer spw.mu.Unlock()
	return spw.err
}

// spawn has the spawner start req in the leaf cgroup open as cgroupFD,
// with out as its standard output and error, and returns how to wait for
// its main process: the wait returns a *startError when the step did not
// start. It returns errTooBig when req does not fit in one message.
func (spw *spawner) spawn(req shim.Request, out *os.File, cgroupFD int) (func() (syscall.WaitStatus, error), error) {
	req.Op = shim.OpSpawn
	if env := spw.envMemo.Load().get(req.Env, ""); env != nil {
		req.Env = env
	} else {
		env = dedupEnv(req.Env)
		spw.envMemo.Store(newMemo(req.Env, "", env))
		req.Env = env
	}
	if shim.RequestSize(req) > shim.MaxMessage-(64<<10) {
		return nil, errTooBig
	}
	ch := make(chan shim.Reply, 1)
	spw.mu.Lock()
	if spw.err != nil {
		spw.mu.Unlock()
		return nil, spw.err
	}
	spw.next++
	req.ID = spw.next
	spw.waits[req.ID] = ch
	spw.mu.Unlock()
	err := spw.send(req, unix.UnixRights(int(out.Fd()), cgroupFD))
	if err != nil {
		spw.mu.Lock()
		delete(spw.waits, req.ID)
		spw.mu.Unlock()
		return nil, err
	}
	return func() (syscall.WaitStatus, error) {
		rep, ok := <-ch
		switch {
		case !ok:
			return 0, spw.gone()
		case rep.Kind == shim.ReplyFailed:
			return 0, &startError{errors.New(rep.Err)}
		}
		return syscall.WaitStatus(rep.Status), nil
	}, nil
}

// dedupEnv keeps only the last of the settings of a variable that env
// sets more than once, as os/exec does for the steps started directly.
func dedupEnv(env []string) []string {
	last := make(map[string]int, len(env))
	for i, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		last[name] = i
	}
	if len(last) == len(env) {
		return env
	}
	out := make([]string, 0, len(last))
	for i, kv := range env {
		if name, _, _ := strings.Cut(kv, "="); last[name] == i {
			out = append(out, kv)
		}
	}
	return out
}

// sendBufs recycles the buffers requests are encoded in.
var sendBufs = sync.Pool{New: func() any { return new([]byte) }}

// send sends req with the descriptors in oob.
func (spw *spawner) send(req shim.Request, oob []byte) error {
	bp := sendBufs.Get().(*[]byte)
	data := shim.AppendRequest((*bp)[:0], req)
	// A SOCK_SEQPACKET message goes whole: senders need no lock.
	err := unix.Sendmsg(spw.fd, data, oob, nil, 0)
	if cap(data) <= 64<<10 {
		*bp = data
		sendBufs.Put(bp)
	}
	switch {
	case err == unix.EMSGSIZE:
		return errTooBig
	case err != nil:
		return fmt.Errorf("asking the spawner: %w", err)
	}
	return nil
}

// reap has the spawner reap the processes that ended in its namespace
// (the orphans of a step, which no pidfd of its tells it about).
func (spw *spawner) reap() {
	spw.send(shim.Request{ID: ^uint64(0), Op: shim.OpReap}, nil)
}

// removeLeaf removes the leaf dir of a step the spawner started; when
// processes of the step were left in it, which removeCgroup kills, the
// spawner reaps them.
func (spw *spawner) removeLeaf(dir string) error {
	err := unix.Rmdir(dir)
	if err == unix.EBUSY {
		err = cgroups.Remove(dir)
		spw.reap()
		return err
	}
	if err == nil || err == unix.ENOENT {
		return nil
	}
	return fmt.Errorf("removing %s: %w", dir, err)
}

// close ends the spawner: its socket is shut, which makes it kill the
// steps it still runs and exit; it is reaped.
func (spw *spawner) close() {
	spw.once.Do(func() {
		unix.Shutdown(spw.fd, unix.SHUT_RDWR)
		<-spw.done
		unix.Close(spw.fd)
		spw.cmd.Wait()
	})
}
