package shell

import (
	"encoding/json"
	"os"
	"os/exec"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// serveSpawner is the spawner's side (`planc __shim -spawn`, see
// spawner_linux.go), called by ShimMain on its locked OS thread once fd 3,
// the socket, is close-on-exec. It sets the protection up on this thread,
// says it is ready, and then starts every requested step from this same
// thread, so that each step inherits the thread's mount namespace,
// Landlock domain and bounding set. When the socket ends (planc closed the
// scope, or died) it kills the process group of every step it still runs
// and returns.
func serveSpawner(c shimConfig) int {
	const sock = 3
	var sendMu sync.Mutex
	send := func(rep spawnReply) {
		b, _ := json.Marshal(rep)
		sendMu.Lock()
		defer sendMu.Unlock()
		unix.Write(sock, b)
	}
	if err := shimProtect(c); err != nil {
		send(spawnReply{Err: "protecting the step's read-only paths: " + err.Error()})
		return 127
	}
	send(spawnReply{})

	var mu sync.Mutex
	running := map[int]bool{}
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
		err = cmd.Start()
		out.Close()
		unix.Close(fds[1])
		if err != nil {
			send(spawnReply{ID: req.ID, Err: err.Error()})
			continue
		}
		pid := cmd.Process.Pid
		mu.Lock()
		running[pid] = true
		mu.Unlock()
		send(spawnReply{ID: req.ID, Pid: pid})
		go func() {
			cmd.Wait()
			var status uint32
			if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok {
				status = uint32(ws)
			}
			mu.Lock()
			delete(running, pid)
			mu.Unlock()
			send(spawnReply{ID: req.ID, Done: true, Status: status})
		}()
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
