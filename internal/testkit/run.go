package testkit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/planc/planc/vm"
)

// The running of the planc binary that the end-to-end tests (e2e) and
// cmd/planc's attack and progress tests share.

// PlancCmd is `planc SUB args…` in dir, with the built binary
// (PlancBinary), killed after a minute at most: a planc that hangs gets
// SIGTERM and SIGINT, which kill its scope, so that not even a failing
// test leaves a process or a cgroup behind; SIGKILL comes 10 s later.
func PlancCmd(t testing.TB, dir, sub string, args ...string) *exec.Cmd {
	t.Helper()
	bin := PlancBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, bin, append([]string{sub}, args...)...)
	cmd.Dir = dir
	cmd.Cancel = func() error { return StopPlanc(cmd.Process) }
	cmd.WaitDelay = 10 * time.Second
	return cmd
}

// RunCmd runs cmd and returns what it printed and its exit status.
func RunCmd(t testing.TB, cmd *exec.Cmd) (stdout, stderr string, code int) {
	t.Helper()
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	return so.String(), se.String(), ExitCode(t, err)
}

// ExitCode is the exit status that err (of Wait or Run) stands for; any
// other error fails t.
func ExitCode(t testing.TB, err error) int {
	t.Helper()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	t.Fatalf("planc: %v", err)
	return -1
}

// DecodeReport decodes a run's standard output into the report's own type,
// refusing a field it does not know; stderr is shown when it is not.
func DecodeReport(t testing.TB, stdout, stderr string) vm.Report {
	t.Helper()
	var rep vm.Report
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("the report is not JSON: %v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	return rep
}

// Sessions returns the session directories under dir's .planc/sessions.
func Sessions(dir string) []string {
	s, _ := filepath.Glob(filepath.Join(dir, ".planc", "sessions", "*"))
	return s
}

// OneSession returns the one session directory under dir.
func OneSession(t testing.TB, dir string) string {
	t.Helper()
	s := Sessions(dir)
	if len(s) != 1 {
		t.Fatalf("want one session directory, have %v", s)
	}
	return s[0]
}

var (
	demoOnce sync.Once
	demoBin  string // the built server; "" when it could not be built
	demoErr  string
)

// MCPDemoServer returns the example MCP server's binary
// (examples/mcp/server), built beside the planc binary on first use.
func MCPDemoServer(t testing.TB) string {
	t.Helper()
	dir := filepath.Dir(PlancBinary(t))
	demoOnce.Do(func() {
		bin := filepath.Join(dir, "planc-mcp-demo")
		out, err := exec.Command("go", "build", "-o", bin, "github.com/planc/planc/examples/mcp/server").CombinedOutput()
		if err != nil {
			demoErr = err.Error() + "\n" + string(out)
			return
		}
		demoBin = bin
	})
	if demoBin == "" {
		t.Fatalf("go build of the MCP server: %s", demoErr)
	}
	return demoBin
}

// MCPCapsule is a manifest granting notes, with read_only "data" and the
// MCP servers given as "name": [argv…] pairs.
func MCPCapsule(servers ...any) string {
	var parts []string
	for i := 0; i+1 < len(servers); i += 2 {
		var argv []string
		for _, a := range servers[i+1].([]string) {
			argv = append(argv, strconv.Quote(a))
		}
		parts = append(parts, strconv.Quote(servers[i].(string))+`: {"command": [`+strings.Join(argv, ", ")+`]}`)
	}
	return `{
  "name": "local/mcp",
  "capabilities": {"plan": {"submit": true}, "filesystem": {"read_only": ["data"]}},
  "tools": {"builtin": ["notes"], "mcp": {` + strings.Join(parts, ", ") + `}}
}`
}

// NoServerLeft fails t when a process of bin still runs once planc has
// exited (waiting, with Patience, for the kernel to reap it).
func NoServerLeft(t testing.TB, bin string) {
	t.Helper()
	var left []string
	if Within(0, func() bool { left = Running(bin); return len(left) == 0 }) {
		return
	}
	t.Errorf("MCP server processes left behind: %v", left)
}
