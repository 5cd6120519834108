package main

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/planc/planc/internal/testkit"
)

// openPTY returns a pseudo-terminal's master and slave.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	fd := int(m.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		t.Skipf("unlock the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		m.Close()
		t.Skipf("pseudo-terminal number: %v", err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Skipf("open the pseudo-terminal: %v", err)
	}
	ws := &unix.Winsize{Row: 30, Col: 100}
	unix.IoctlSetWinsize(int(s.Fd()), unix.TIOCSWINSZ, ws)
	return m, s
}

// TestRunProgressTerminal: on a terminal the live view shows every step,
// redrawn in place; --quiet turns it off.
func TestRunProgressTerminal(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "plan.json", toolPlan, "src/a.go", "")
	for _, quiet := range []bool{false, true} {
		master, slave := openPTY(t)
		args := []string{"plan.json"}
		if quiet {
			args = append(args, "--quiet")
		}
		cmd := plancCmd(t, dir, args...)
		var stdout bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, slave
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		slave.Close()
		got := make(chan []byte)
		go func() {
			b, _ := io.ReadAll(master) // ends with EIO once planc has exited
			got <- b
		}()
		code := exitCode(t, cmd.Wait())
		view := string(<-got)
		master.Close()
		if code != 0 {
			t.Fatalf("exit %d: %s", code, view)
		}
		if quiet {
			if view != "" {
				t.Errorf("--quiet on a terminal wrote %q", view)
			}
			continue
		}
		for _, want := range []string{"\x1b[2K", `plan "tools": 5 steps, 5 settled`, "list", "success", "never", "skipped"} {
			if !strings.Contains(view, want) {
				t.Errorf("the live view lacks %q:\n%q", want, view)
			}
		}
		if !strings.Contains(stdout.String(), `"plan_id": "tools"`) {
			t.Errorf("stdout: %s", stdout.String())
		}
	}
}

// TestRunProgressForced: --progress shows the view on a pipe too.
func TestRunProgressForced(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "plan.json", toolPlan, "src/a.go", "")
	r := planc(t, dir, "--progress", "plan.json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, id := range []string{"list", "write", "read", "note", "never"} {
		if !strings.Contains(r.stderr, "  "+id+" ") {
			t.Errorf("no row for %s in:\n%s", id, r.stderr)
		}
	}
}

// TestRunProgressRunning: a running step shows its elapsed time, and the
// view is redrawn in place (the cursor goes back up) while it runs.
func TestRunProgressRunning(t *testing.T) {
	testkit.NeedScope(t)
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, "capsule.json", shellCapsule, "plan.json", `{"id": "nap", "steps": [
		{"id": "nap", "shell": "sleep 0.5"},
		{"id": "after", "tool": "notes", "depends_on": ["nap"], "input": {"body": "x"}}
	]}`)
	master, slave := openPTY(t)
	defer master.Close()
	cmd := plancCmd(t, dir, "--capsule", "capsule.json", "plan.json")
	cmd.Stdout, cmd.Stderr = io.Discard, slave
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	got := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(master)
		got <- b
	}()
	if code := exitCode(t, cmd.Wait()); code != 0 {
		t.Fatalf("exit %d", code)
	}
	view := string(<-got)
	for _, want := range []string{"nap    shell    running 0.", "after  tool     waiting", "\x1b[3F", "nap    shell    success 0.", "after  tool     success"} {
		if !strings.Contains(view, want) {
			t.Errorf("the live view lacks %q:\n%q", want, view)
		}
	}
}
