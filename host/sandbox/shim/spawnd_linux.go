package shim

import (
	"fmt"
	"os/signal"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// serveSpawner is the spawner's side (`planc __shim -spawn`, see
// spawner_linux.go), called by Main on its locked OS thread once fd 3,
// the socket, is close-on-exec. It sets the protection up on this thread,
// says it is ready, and then starts every requested step from this same
// thread, so that each step inherits the thread's restrictions. As process
// 1 of the steps' PID namespace it reaps every process that ends in it,
// and reports the end of each step's main process. When the socket ends
// (planc closed the scope, or died) it kills the process group of every
// step it still runs and returns; its exit ends whatever is left in the
// namespace.
//
// Everything happens in one loop on this thread, with no other goroutine:
// it sleeps in poll on the socket and on a pidfd of each step's main
// process, starts what was asked, reaps what ended (the orphans of the
// steps too) and sends the replies that are ready together in one
// message.
func serveSpawner(c Config, caught <-chan struct{}) int {
	const sock = FDReport
	err := shimSetUp(c)
	<-caught // every signal is taken (Main) before a step can send one
	if err != nil {
		msg := "protecting the step's read-only paths: " + err.Error()
		unix.Write(sock, AppendReply(nil, Reply{Kind: ReplyFailed, Err: msg}))
		return 127
	}
	devNull, err := unix.Open("/dev/null", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		unix.Write(sock, AppendReply(nil, Reply{Kind: ReplyFailed, Err: "opening /dev/null: " + err.Error()}))
		return 127
	}
	quietChildren()
	sp := spawnd{sock: sock, devNull: devNull, running: map[int]runningStep{}}
	sp.out = AppendReply(sp.out, Reply{Kind: ReplyReady})
	sp.flush()
	sp.serve()
	for pid, r := range sp.running {
		unix.Kill(-pid, unix.SIGKILL) // each step leads its own session
		unix.Close(r.pidfd)
	}
	return 0
}

// quietChildren keeps the end of a child from interrupting the spawner:
// the loop learns of a step's end from its pidfd, and reaps the orphans
// of a step when planc says it killed some, and after every message.
// Main's catching of every signal would wake a goroutine per SIGCHLD,
// and the Go runtime's handler, which stays installed, would interrupt a
// thread: SIGCHLD goes back to the kernel's default, under which it is
// discarded without waking anyone (and, unlike SIG_IGN, children still
// wait to be reaped).
func quietChildren() {
	signal.Reset(syscall.SIGCHLD)
	var act [4]uint64 // struct sigaction, all zero: SIG_DFL, no flags, no mask
	unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(unix.SIGCHLD), uintptr(unsafe.Pointer(&act)), 0, 8, 0, 0)
}

// runningStep is a step's main process as the spawner tracks it.
type runningStep struct {
	id    uint64 // its request
	pidfd int
}

// spawnd is the spawner's state.
type spawnd struct {
	sock    int
	devNull int
	running map[int]runningStep // by pid
	out     []byte              // the replies not sent yet
	pfds    []unix.PollFd
}

// maxBatch is the size past which the replies go out at once.
const maxBatch = 32 << 10

// serve runs the loop until the socket ends.
func (sp *spawnd) serve() {
	buf := make([]byte, MaxMessage)
	oob := make([]byte, unix.CmsgSpace(2*4))
	for {
		sp.pfds = append(sp.pfds[:0], unix.PollFd{Fd: int32(sp.sock), Events: unix.POLLIN})
		for _, r := range sp.running {
			sp.pfds = append(sp.pfds, unix.PollFd{Fd: int32(r.pidfd), Events: unix.POLLIN})
		}
		if _, err := unix.Poll(sp.pfds, -1); err != nil && err != unix.EINTR {
			return
		}
		if sp.pfds[0].Revents != 0 {
			for {
				n, oobn, flags, _, err := unix.Recvmsg(sp.sock, buf, oob, unix.MSG_CMSG_CLOEXEC|unix.MSG_DONTWAIT)
				if err == unix.EINTR {
					continue
				}
				if err == unix.EAGAIN {
					break
				}
				if err != nil || n == 0 {
					sp.reap()
					sp.flush()
					return
				}
				sp.handle(buf[:n], oob[:oobn], flags)
			}
		}
		sp.reap()
		sp.flush()
	}
}

// handle serves one request message.
func (sp *spawnd) handle(msg, oob []byte, flags int) {
	fds := rights(oob)
	defer func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}()
	req, err := DecodeRequest(msg)
	switch {
	case flags&(unix.MSG_TRUNC|unix.MSG_CTRUNC) != 0:
		err = fmt.Errorf("malformed request to the spawner: truncated")
	case err == nil && req.Op == OpSpawn && len(fds) != 2, err == nil && req.Op == OpReap && len(fds) != 0:
		err = fmt.Errorf("malformed request to the spawner: %d descriptors", len(fds))
	}
	if err != nil {
		sp.queue(Reply{ID: req.ID, Kind: ReplyFailed, Err: err.Error()})
		return
	}
	if req.Op == OpReap {
		return // the loop reaps after every message
	}
	pidfd := -1
	attr := &syscall.ProcAttr{
		Dir:   req.Dir,
		Env:   req.Env,
		Files: []uintptr{uintptr(sp.devNull), uintptr(fds[0]), uintptr(fds[0])},
		Sys:   &syscall.SysProcAttr{Setsid: true, UseCgroupFD: true, CgroupFD: fds[1], PidFD: &pidfd},
	}
	pid, err := syscall.ForkExec(req.File, req.Argv, attr)
	if err != nil {
		msg := fmt.Sprintf("fork/exec %s: %v", req.File, err)
		sp.queue(Reply{ID: req.ID, Kind: ReplyFailed, Err: msg})
		return
	}
	sp.running[pid] = runningStep{id: req.ID, pidfd: pidfd}
}

// reap reaps every process of the namespace that has ended, and queues
// the end of each step's main process.
func (sp *spawnd) reap() {
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
		if err == unix.EINTR {
			continue
		}
		if pid <= 0 || err != nil {
			return
		}
		if r, ok := sp.running[pid]; ok {
			delete(sp.running, pid)
			unix.Close(r.pidfd)
			sp.queue(Reply{ID: r.id, Kind: ReplyDone, Status: uint32(ws)})
		}
	}
}

// queue queues rep, sending the queue first when it is long.
func (sp *spawnd) queue(rep Reply) {
	if len(sp.out) >= maxBatch {
		sp.flush()
	}
	sp.out = AppendReply(sp.out, rep)
}

// flush sends the queued replies in one message.
func (sp *spawnd) flush() {
	for len(sp.out) > 0 {
		_, err := unix.Write(sp.sock, sp.out)
		if err == unix.EINTR || err == unix.EAGAIN {
			continue
		}
		sp.out = sp.out[:0]
	}
}

// rights returns the descriptors passed in a control message.
func rights(oob []byte) []int {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var fds []int
	for _, m := range msgs {
		if r, err := unix.ParseUnixRights(&m); err == nil {
			fds = append(fds, r...)
		}
	}
	return fds
}
