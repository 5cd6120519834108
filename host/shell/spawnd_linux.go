package shell

import (
	"encoding/json"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// serveSpawner is the spawner's side (`planc __shim -spawn`, see
// spawner_linux.go), called by ShimMain on its locked OS thread once fd 3,
// the socket, is close-on-exec. It sets the protection up on this thread,
// says it is ready, and then starts every requested step from this same
// thread, so that each step inherits the thread's restrictions. As process
// 1 of the steps' PID namespace it reaps every process that ends in it,
// and reports the end of each step's main process. When the socket ends
// (planc closed the scope, or died) it kills the process group of every
// step it still runs and returns; its exit ends whatever is left in the
// namespace.
func serveSpawner(c shimConfig) int {
	const sock = fdReport
	var sendMu sync.Mutex
	send := func(rep spawnReply) {
		b, _ := json.Marshal(rep)
		sendMu.Lock()
		defer sendMu.Unlock()
		unix.Write(sock, b)
	}
	if err := shimSetUp(c); err != nil {
		send(spawnReply{Err: "protecting the step's read-only paths: " + err.Error()})
		return 127
	}

	var mu sync.Mutex
	running := map[int]uint64{} // a step's main process → its request
	sigchld := make(chan os.Signal, 1)
	signal.Notify(sigchld, unix.SIGCHLD)
	go func() {
		for range sigchld {
			for {
				var ws unix.WaitStatus
				pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
				if err == unix.EINTR {
					continue
				}
				if pid <= 0 || err != nil {
					break
				}
				// A step is in running before its pid could be
				// reaped: the start holds mu until it is.
				mu.Lock()
				id, ok := running[pid]
				delete(running, pid)
				mu.Unlock()
				if ok {
					send(spawnReply{ID: id, Done: true, Status: uint32(ws)})
				}
			}
		}
	}()
	send(spawnReply{})

	buf := make([]byte, maxMessage)
	oob := make([]byte, unix.CmsgSpace(2*4))
	for {
		n, oobn, flags, _, err := unix.Recvmsg(sock, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 {
			break
		}
		fds := rights(oob[:oobn])
		var req spawnRequest
		jerr := json.Unmarshal(buf[:n], &req)
		if jerr != nil || len(fds) != 2 || flags&(unix.MSG_TRUNC|unix.MSG_CTRUNC) != 0 {
			for _, fd := range fds {
				unix.Close(fd)
			}
			send(spawnReply{ID: req.ID, Err: "malformed request to the spawner"})
			continue
		}
		out := os.NewFile(uintptr(fds[0]), "output")
		cmd := &exec.Cmd{Path: req.File, Args: req.Argv, Dir: req.Dir, Env: req.Env, Stdout: out, Stderr: out}
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, UseCgroupFD: true, CgroupFD: fds[1]}
		// The reply with the pid goes out before the reaper can report
		// the step's end.
		mu.Lock()
		err = cmd.Start()
		if err == nil {
			running[cmd.Process.Pid] = req.ID
			send(spawnReply{ID: req.ID, Pid: cmd.Process.Pid})
			cmd.Process.Release() // the reaper waits for it
		} else {
			send(spawnReply{ID: req.ID, Err: err.Error()})
		}
		mu.Unlock()
		out.Close()
		unix.Close(fds[1])
	}
	mu.Lock()
	for pid := range running {
		unix.Kill(-pid, unix.SIGKILL) // each step leads its own session
	}
	mu.Unlock()
	return 0
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
