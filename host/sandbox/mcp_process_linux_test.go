package sandbox

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// startSh starts `sh -c script` with start and returns the process and
// the first line the script prints.
func startSh(t *testing.T, start func(*exec.Cmd) (*Process, error), script string) (*Process, string) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	p, err := start(&exec.Cmd{Path: sh, Args: []string{"sh", "-c", script}, Stdout: w})
	w.Close()
	if err != nil {
		t.Fatalf("StartProcess: %v", err)
	}
	t.Cleanup(func() { p.Stop() })
	r.SetReadDeadline(time.Now().Add(10 * time.Second))
	line, _ := bufio.NewReader(r).ReadString('\n')
	return p, strings.TrimSpace(line)
}

// gone waits up to a minute for pid to be gone (or a zombie): on its
// pidfd, which the kernel makes readable the moment the process exits.
// (testkit.WaitExit does the same; this package's tests cannot import
// testkit, which imports this package.)
func gone(t *testing.T, pid string) {
	t.Helper()
	n, _ := strconv.Atoi(pid)
	fd, err := unix.PidfdOpen(n, 0)
	if err == unix.ESRCH {
		return
	}
	if err != nil {
		t.Fatalf("pidfd of %s: %v", pid, err)
	}
	defer unix.Close(fd)
	deadline := time.Now().Add(time.Minute)
	for {
		r, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, int(max(time.Until(deadline), 0).Milliseconds()))
		if r > 0 {
			return
		}
		if err != unix.EINTR {
			break
		}
	}
	t.Errorf("process %s is still running", pid)
}

func TestScopeStartProcess(t *testing.T) {
	s := openTestScope(t)
	p, child := startSh(t, func(c *exec.Cmd) (*Process, error) { return s.StartProcess(c, "mcp") }, "sleep 60 & echo $!; wait")
	cg, err := os.ReadFile("/proc/" + strconv.Itoa(p.Pid()) + "/cgroup")
	if err != nil {
		t.Fatal(err)
	}
	leaf := p.sys.leaf
	if filepath.Dir(leaf) != s.Dir() || !strings.HasPrefix(filepath.Base(leaf), "mcp-") || !strings.Contains(string(cg), "/"+filepath.Base(leaf)+"\n") {
		t.Errorf("the process is in %q; want a leaf mcp-N of %s (%s)", cg, s.Dir(), leaf)
	}
	select {
	case <-p.Done():
		t.Fatalf("Done before Stop: %v", p.Err())
	default:
	}
	if err := p.Stop(); err != nil {
		t.Errorf("Stop: %v", err)
	}
	if got := p.Err(); got == nil || got.Error() != "killed by signal SIGKILL" {
		t.Errorf("Err = %v, want killed by signal SIGKILL", got)
	}
	gone(t, child)
	if _, err := os.Stat(leaf); !os.IsNotExist(err) {
		t.Errorf("leaf %s still there after Stop (%v)", leaf, err)
	}
	if err := p.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
}

func TestScopeStartProcessExits(t *testing.T) {
	s := openTestScope(t)
	p, _ := startSh(t, func(c *exec.Cmd) (*Process, error) { return s.StartProcess(c, "mcp") }, "echo up; exit 3")
	select {
	case <-p.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("no exit")
	}
	if got := p.Err(); got == nil || got.Error() != "exit status 3" {
		t.Errorf("Err = %v, want exit status 3", got)
	}
	if err := p.Stop(); err != nil {
		t.Errorf("Stop: %v", err)
	}
}

func TestScopeCloseEndsProcess(t *testing.T) {
	s := openTestScope(t)
	p, child := startSh(t, func(c *exec.Cmd) (*Process, error) { return s.StartProcess(c, "mcp") }, "sleep 60 & echo $!; wait")
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case <-p.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the process outlived Close")
	}
	gone(t, child)
	if err := p.Stop(); err != nil {
		t.Errorf("Stop after Close: %v", err)
	}
	if _, err := s.StartProcess(exec.Command("true"), "mcp"); err == nil {
		t.Errorf("StartProcess after Close succeeded")
	}
}

func TestStartProcessGroup(t *testing.T) {
	p, child := startSh(t, StartProcess, "sleep 60 & echo $!; wait")
	if err := p.Stop(); err != nil {
		t.Errorf("Stop: %v", err)
	}
	gone(t, child)
	if got := p.Err(); got == nil || got.Error() != "killed by signal SIGKILL" {
		t.Errorf("Err = %v, want killed by signal SIGKILL", got)
	}
}

func TestStartProcessNotFound(t *testing.T) {
	if _, err := StartProcess(&exec.Cmd{Path: "/nonexistent/server", Args: []string{"server"}}); err == nil {
		t.Errorf("StartProcess of a missing file succeeded")
	}
}

// TestStartServerNotAbsolute: StartServer checks the protected paths as a
// step's shim does (it once skipped the check that Run and Contain make):
// a path handed down in PLANC_PROTECTED that is not absolute refuses the
// server before anything starts, as it refuses a step.
func TestStartServerNotAbsolute(t *testing.T) {
	s := openTestScope(t)
	t.Setenv(EnvProtected, `["relative/dir"]`)
	cmd := exec.Command("true")
	if _, err := s.StartServer(cmd, "mcp"); err == nil || !strings.Contains(err.Error(), `protected path "relative/dir" is not absolute`) {
		t.Errorf("StartServer: %v; want the path refused", err)
	}
	if cmd.Process != nil {
		t.Error("the server was started")
	}
	if _, err := Contain(exec.Command("true"), nil); err == nil || !strings.Contains(err.Error(), "not absolute") {
		t.Errorf("Contain: %v; want the same refusal", err)
	}
}
