package sandbox

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/planc/planc/host/sandbox/shim"
	"golang.org/x/sys/unix"
)

// A protected step, started by the spawner, lives like any other: in its
// leaf, bounded, and leaving nothing behind.
func TestSpawnedStep(t *testing.T) {
	t.Parallel()
	s := protectedScope(t)
	protect := []string{t.TempDir()}
	r := sh(s, "", "sleep 1000 & echo $!; grep ^0:: /proc/self/cgroup; exit 4", protect...)
	if r.Err == nil || r.Err.Error() != "exit status 4" {
		t.Fatalf("got %+v", r)
	}
	// The step's cgroup namespace is rooted at the scope; its pid is one
	// of its PID namespace. That its leaf is gone says the background
	// sleep is.
	lines := strings.Split(strings.TrimSpace(string(r.Output)), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[1], "0::/step-") {
		t.Fatalf("output %q; want the pid and the step's leaf", r.Output)
	}
	if got := leaves(t, s); len(got) != 0 {
		t.Fatalf("leaves %q; want none (the spawner lives in the scope's own directory)", got)
	}

	// The bound must leave the shell time to set its trap even on a
	// loaded machine: the step's end, not this bound, ends the wait.
	script := `trap 'echo got TERM' TERM; sleep 1000 & wait; sleep 1000 & wait`
	r = s.Run(context.Background(), Spec{Argv: []string{"sh", "-c", script}, Protect: protect, Timeout: 8 * time.Second, Grace: 2 * time.Second})
	if !r.TimedOut || r.Signal != syscall.SIGKILL || string(r.Output) != "got TERM\n" {
		t.Fatalf("bound: got %+v", r)
	}

	missing := s.Run(context.Background(), Spec{Argv: []string{"true"}, Dir: "/no/such/dir", Protect: protect})
	if missing.Err == nil || !strings.Contains(missing.Err.Error(), "no such file") {
		t.Fatalf("missing dir: %v", missing.Err)
	}
}

// A protected step sees the last setting of a variable its environment
// sets twice, as a step started directly does.
func TestSpawnedEnvDuplicates(t *testing.T) {
	s := protectedScope(t)
	for _, protect := range [][]string{nil, {t.TempDir()}} {
		r := s.Run(context.Background(), Spec{Argv: []string{"env"}, Env: []string{"A=1", "B=x", "A=2"}, Protect: protect})
		if r.Err != nil || string(r.Output) != "B=x\nA=2\n" {
			t.Errorf("protect %q: output %q, %v; want A=2 once", protect, r.Output, r.Err)
		}
	}
}

// Scope.Kill ends protected steps and their spawner at once.
func TestKillProtected(t *testing.T) {
	s := protectedScope(t)
	protect := []string{t.TempDir()}
	done := startBlocked(t, s, filepath.Join(t.TempDir(), "fifo"), "trap '' TERM; sleep 1000", protect...)
	if err := s.Kill(); err != nil {
		t.Fatal(err)
	}
	if r := <-done; !errors.Is(r.Err, errKilled) {
		t.Fatalf("got %+v; want killed", r)
	}
}

// A spawner that dies fails the steps it ran, which leave nothing behind,
// and the next protected step gets a new spawner.
func TestSpawnerDies(t *testing.T) {
	s := protectedScope(t)
	protect := []string{t.TempDir()}
	done := startBlocked(t, s, filepath.Join(t.TempDir(), "fifo"), "sleep 1000", protect...)
	spawners := scopeProcs(t, s)
	if len(spawners) != 1 {
		t.Fatalf("spawners %v; want one", spawners)
	}
	if err := syscall.Kill(spawners[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.Err == nil || !strings.Contains(r.Err.Error(), "spawner of protected steps ended") {
		t.Fatalf("got %+v", r)
	}
	if r := sh(s, "", "echo again", protect...); r.Err != nil || string(r.Output) != "again\n" {
		t.Fatalf("after the spawner died: %q, %v", r.Output, r.Err)
	}
	for _, l := range leaves(t, s) {
		if strings.HasPrefix(l, "step-") {
			t.Fatalf("leaf %s left behind", l)
		}
	}
}

// Many steps at once, protected or not, each get their own output and
// status.
func TestParallelSteps(t *testing.T) {
	s := openTestScope(t)
	var protect []string
	if s.ProtectionOff() == "" {
		protect = []string{t.TempDir()}
	}
	const n = 40
	results := make(chan error, n)
	for i := range n {
		go func() {
			var p []string
			if i%2 == 0 {
				p = protect
			}
			r := sh(s, "", "echo "+strconv.Itoa(i)+"; exit "+strconv.Itoa(i%3), p...)
			want := "exit status " + strconv.Itoa(i%3)
			switch {
			case string(r.Output) != strconv.Itoa(i)+"\n":
				results <- errors.New("step " + strconv.Itoa(i) + " output " + string(r.Output))
			case i%3 == 0 && r.Err != nil, i%3 != 0 && (r.Err == nil || r.Err.Error() != want):
				results <- errors.New("step " + strconv.Itoa(i) + ": " + errString(r.Err))
			default:
				results <- nil
			}
		}()
	}
	for range n {
		if err := <-results; err != nil {
			t.Error(err)
		}
	}
	for _, l := range leaves(t, s) {
		if strings.HasPrefix(l, "step-") {
			t.Errorf("leaf %s left behind", l)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// The spawner answers a malformed request, or one with the wrong
// descriptors, with an error to the request's id, and goes on serving.
func TestSpawnerMalformed(t *testing.T) {
	s := protectedScope(t)
	protect := []string{t.TempDir()}
	spw, err := s.spawnerFor(cleanProtect(append(inherited(), protect...)))
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := pipeFDs()
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(r)
	defer unix.Close(w)
	spawnReq := shim.Request{Op: shim.OpSpawn, File: "/bin/true", Argv: []string{"true"}}
	for i, c := range []struct {
		msg  func(id uint64) []byte
		oob  []byte
		want string
	}{
		{func(id uint64) []byte { return shim.AppendRequest(nil, shim.Request{ID: id, Op: 77}) }, nil, "unknown operation 77"},
		{func(id uint64) []byte { b := shim.AppendRequest(nil, withID(spawnReq, id)); return b[:len(b)-2] }, unix.UnixRights(r, w), "ends early"},
		{func(id uint64) []byte { return shim.AppendRequest(nil, withID(spawnReq, id)) }, unix.UnixRights(r), "1 descriptors"},
		{func(id uint64) []byte { return shim.AppendRequest(nil, withID(spawnReq, id)) }, nil, "0 descriptors"},
		{func(id uint64) []byte { return shim.AppendRequest(nil, shim.Request{ID: id, Op: shim.OpReap}) }, unix.UnixRights(r), "1 descriptors"},
	} {
		ch := make(chan shim.Reply, 1)
		spw.mu.Lock()
		spw.next++
		id := spw.next
		spw.waits[id] = ch
		spw.mu.Unlock()
		if err := unix.Sendmsg(spw.fd, c.msg(id), c.oob, nil, 0); err != nil {
			t.Fatal(err)
		}
		rep, ok := <-ch
		if !ok || rep.Kind != shim.ReplyFailed || !strings.Contains(rep.Err, "malformed request to the spawner") || !strings.Contains(rep.Err, c.want) {
			t.Errorf("case %d: reply %+v (open %v); want an error saying %q", i, rep, ok, c.want)
		}
	}
	res := s.Run(context.Background(), Spec{Argv: []string{"sh", "-c", "echo still"}, Protect: protect})
	if res.Err != nil || string(res.Output) != "still\n" {
		t.Fatalf("after malformed requests: %q, %v", res.Output, res.Err)
	}
}

// A request too big for one message goes to a shim of its own (which
// exec refuses, past its limit); the spawner is untouched and serves on.
func TestSpawnTooBig(t *testing.T) {
	s := protectedScope(t)
	protect := []string{t.TempDir()}
	argv := []string{"true"}
	for len(argv) < 40 { // 40 × 110 KB: past shim.MaxMessage
		argv = append(argv, strings.Repeat("x", 110<<10))
	}
	if n := shim.RequestSize(shim.Request{File: "/bin/true", Argv: argv}); n <= shim.MaxMessage {
		t.Fatalf("request of %d bytes fits", n)
	}
	r := s.Run(context.Background(), Spec{Argv: argv, Protect: protect})
	if r.Err == nil || !strings.Contains(r.Err.Error(), "fork/exec "+shim.Path(s.Shim)+": argument list too long") {
		t.Fatalf("got %v; want the exec of a shim of its own to refuse it", r.Err)
	}
	if r := s.Run(context.Background(), Spec{Argv: []string{"sh", "-c", "echo ok"}, Protect: protect}); r.Err != nil || string(r.Output) != "ok\n" {
		t.Fatalf("after: %q, %v", r.Output, r.Err)
	}
}

func withID(req shim.Request, id uint64) shim.Request {
	req.ID = id
	return req
}

func pipeFDs() (int, int, error) {
	var p [2]int
	err := unix.Pipe2(p[:], unix.O_CLOEXEC)
	return p[0], p[1], err
}

// TestSpawnerTakesSignals: a step that sends its spawner, process 1 of
// its PID namespace, every signal there is, from SIGHUP to the last
// real-time one, SIGKILL and SIGSTOP included, ends neither the spawner
// nor the plan's next step: the spawner takes every signal it can
// (shim.Main), the kernel drops the two it cannot from inside its
// namespace, and the next step runs through the same spawner.
func TestSpawnerTakesSignals(t *testing.T) {
	s := protectedScope(t)
	protect := []string{t.TempDir()}
	s.Prepare(protect)
	before := scopeProcs(t, s)
	if len(before) != 1 {
		t.Fatalf("spawners %v after Prepare; want one", before)
	}
	r := sh(s, "", `n=1; while [ $n -le 64 ]; do kill -$n 1 || echo "kill -$n failed"; n=$((n+1)); done; echo sent`, protect...)
	if r.Err != nil || string(r.Output) != "sent\n" {
		t.Fatalf("signalling the spawner: %q, %v", r.Output, r.Err)
	}
	if r := sh(s, "", "echo again", protect...); r.Err != nil || string(r.Output) != "again\n" {
		t.Fatalf("the step after: %q, %v", r.Output, r.Err)
	}
	if after := scopeProcs(t, s); !slices.Equal(after, before) {
		t.Errorf("spawners %v after the signals; want the same one, %v", after, before)
	}
}
