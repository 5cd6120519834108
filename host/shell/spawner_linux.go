package shell

// The spawner: one `planc __shim -spawn` per scope and set of protected
// paths, already in the namespaces and under the restrictions that the
// shim sets up (shim_linux.go), which starts each protected step as its
// own child. It spares each step a re-exec of planc and the set-up, which
// would be most of what a step costs: the set-up is per scope, not per
// step.
//
// It starts in the scope (its steps' cgroup namespace is rooted there),
// moves into a leaf cgroup of its own, and talks over a SOCK_SEQPACKET
// socket pair (its fd 3): a request is one JSON spawnRequest with two
// descriptors (the step's output pipe and its leaf cgroup, into which the
// spawner clones the step with CLONE_INTO_CGROUP); the replies are JSON
// spawnReply messages: the spawner's readiness (ID 0), then per request
// the step's pid or why it did not start, then its wait status.

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// spawnRequest asks the spawner to start one step.
type spawnRequest struct {
	ID   uint64   `json:"id"`
	File string   `json:"file"`
	Argv []string `json:"argv"`
	Dir  string   `json:"dir,omitempty"`
	Env  []string `json:"env"`
}

// spawnReply is one message from the spawner.
type spawnReply struct {
	ID     uint64 `json:"id"`
	Err    string `json:"err,omitempty"`
	Pid    int    `json:"pid,omitempty"`
	Done   bool   `json:"done,omitempty"`
	Status uint32 `json:"status,omitempty"`
}

// maxMessage bounds one message on the spawner's socket; a request that
// does not fit runs through a shim of its own.
const maxMessage = 4 << 20

// errTooBig is a request too big for the spawner's socket.
var errTooBig = errors.New("request too big for the spawner")

// spawner is the runner's side of one spawner process.
type spawner struct {
	fd     int // our end of the socket
	cmd    *exec.Cmd
	leaf   *leaf
	sendMu sync.Mutex

	mu    sync.Mutex
	next  uint64
	waits map[uint64]chan spawnReply
	err   error         // why the spawner is gone, once it is
	done  chan struct{} // closed when the reader has ended
	once  sync.Once
}

// spawnerFor returns the scope's spawner for protect, starting it when
// there is none or the last one is gone.
func (s *Scope) spawnerFor(protect []string) (*spawner, error) {
	key := strings.Join(protect, "\x00")
	s.sys.spawnMu.Lock()
	defer s.sys.spawnMu.Unlock()
	if err := s.ended(); err != nil {
		return nil, err
	}
	if spw := s.sys.spawners[key]; spw != nil {
		if spw.gone() == nil {
			return spw, nil
		}
		spw.close()
		delete(s.sys.spawners, key)
	}
	spw, err := s.startSpawner(protect)
	if err != nil {
		return nil, err
	}
	if s.sys.spawners == nil {
		s.sys.spawners = map[string]*spawner{}
	}
	s.sys.spawners[key] = spw
	return spw, nil
}

// startSpawner starts a spawner for protect and waits until it is ready.
func (s *Scope) startSpawner(protect []string) (*spawner, error) {
	l, err := s.newLeaf("spawner")
	if err != nil {
		return nil, err
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		l.finish()
		return nil, err
	}
	unix.SetsockoptInt(fds[0], unix.SOL_SOCKET, unix.SO_SNDBUFFORCE, maxMessage)
	theirs := os.NewFile(uintptr(fds[1]), "spawner")
	// It starts in the scope, where its cgroup namespace is rooted, and
	// moves into its leaf.
	scopeFD, err := unix.Open(s.sys.dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		theirs.Close()
		unix.Close(fds[0])
		l.finish()
		return nil, fmt.Errorf("opening %s: %w", s.sys.dir, err)
	}
	m := s.mode()
	args := append(shimArgs(s.Shim, m.lock, protect), "-cgroup", s.sys.dir, "-move", l.dir, "-report", "-spawn")
	cmd := &exec.Cmd{Path: args[0], Args: args, ExtraFiles: []*os.File{theirs}, SysProcAttr: m.attr(scopeFD)}
	err = cmd.Start()
	theirs.Close()
	unix.Close(scopeFD)
	l.closeFD()
	spw := &spawner{fd: fds[0], cmd: cmd, leaf: l, waits: map[uint64]chan spawnReply{}, done: make(chan struct{})}
	if err != nil {
		unix.Close(fds[0])
		l.finish()
		return nil, fmt.Errorf("starting the spawner: %w", err)
	}
	rep, err := spw.read(make([]byte, 64<<10))
	if err == nil && rep.Err != "" {
		err = errors.New(rep.Err)
	}
	if err != nil {
		close(spw.done)
		spw.close()
		return nil, err
	}
	go spw.readReplies()
	return spw, nil
}

// read reads one reply.
func (spw *spawner) read(buf []byte) (spawnReply, error) {
	var rep spawnReply
	for {
		n, err := unix.Read(spw.fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return rep, fmt.Errorf("the spawner's socket: %w", err)
		}
		if n == 0 {
			return rep, errors.New("the spawner of protected steps ended")
		}
		if err := json.Unmarshal(buf[:n], &rep); err != nil {
			return rep, fmt.Errorf("the spawner's reply: %w", err)
		}
		return rep, nil
	}
}

// readReplies hands each reply to the step waiting for it, until the
// spawner is gone; then every waiting step learns why.
func (spw *spawner) readReplies() {
	buf := make([]byte, 64<<10)
	var err error
	for {
		var rep spawnReply
		if rep, err = spw.read(buf); err != nil {
			break
		}
		spw.mu.Lock()
		ch := spw.waits[rep.ID]
		if rep.Done || rep.Err != "" {
			delete(spw.waits, rep.ID)
		}
		spw.mu.Unlock()
		if ch != nil {
			ch <- rep
		}
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

// gone returns why the spawner is gone, or nil while it serves.
func (spw *spawner) gone() error {
	spw.mu.Lock()
	defer spw.mu.Unlock()
	return spw.err
}

// spawn has the spawner start req in the leaf cgroup open as cgroupFD,
// with out as its standard output and error, and returns how to wait for
// its main process. It returns errTooBig when req does not fit in one
// message.
func (spw *spawner) spawn(req spawnRequest, out *os.File, cgroupFD int) (func() (syscall.WaitStatus, error), error) {
	ch := make(chan spawnReply, 2)
	spw.mu.Lock()
	if spw.err != nil {
		spw.mu.Unlock()
		return nil, spw.err
	}
	spw.next++
	req.ID = spw.next
	spw.waits[req.ID] = ch
	spw.mu.Unlock()
	drop := func() {
		spw.mu.Lock()
		delete(spw.waits, req.ID)
		spw.mu.Unlock()
	}
	data, err := json.Marshal(req)
	if err != nil {
		drop()
		return nil, err
	}
	if len(data) > maxMessage-(64<<10) {
		drop()
		return nil, errTooBig
	}
	spw.sendMu.Lock()
	err = unix.Sendmsg(spw.fd, data, unix.UnixRights(int(out.Fd()), cgroupFD), nil, 0)
	spw.sendMu.Unlock()
	if err != nil {
		drop()
		if err == unix.EMSGSIZE {
			return nil, errTooBig
		}
		return nil, fmt.Errorf("asking the spawner: %w", err)
	}
	rep, ok := <-ch
	if !ok {
		return nil, spw.gone()
	}
	if rep.Err != "" {
		return nil, errors.New(rep.Err)
	}
	return func() (syscall.WaitStatus, error) {
		rep, ok := <-ch
		if !ok {
			return 0, spw.gone()
		}
		return syscall.WaitStatus(rep.Status), nil
	}, nil
}

// close ends the spawner: its socket is shut, which makes it kill the
// steps it still runs and exit; it is reaped and its leaf removed.
func (spw *spawner) close() {
	spw.once.Do(func() {
		unix.Shutdown(spw.fd, unix.SHUT_RDWR)
		<-spw.done
		unix.Close(spw.fd)
		spw.cmd.Wait()
		spw.leaf.finish()
	})
}
