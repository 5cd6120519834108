package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/planc/planc/internal/testkit"
)

// TestCheckInterruptedReading: planc check blocked reading its plan (a
// FIFO no one opens to write) ends on the first SIGINT or SIGTERM, with
// exit status 130 and one line on standard error, rather than hang until
// SIGKILL.
func TestCheckInterruptedReading(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			fifo := filepath.Join(dir, "plan.json")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(plancBin(t), "check", "plan.json")
			cmd.Dir = dir
			var se strings.Builder
			cmd.Stderr = &se
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			// Blocked: one of its threads waits in the FIFO's open.
			tasks := filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "task")
			if !testkit.Within(0, func() bool {
				ws, _ := filepath.Glob(filepath.Join(tasks, "*", "wchan"))
				for _, w := range ws {
					if b, _ := os.ReadFile(w); string(b) == "wait_for_partner" {
						return true
					}
				}
				return false
			}) {
				t.Fatal("planc check never blocked in the FIFO's open")
			}
			cmd.Process.Signal(sig)
			// A planc that ignores the signal is killed after a generous
			// bound, which fails the test.
			var hung atomic.Bool
			watchdog := time.AfterFunc(30*time.Second, func() { hung.Store(true); cmd.Process.Kill() })
			defer watchdog.Stop()
			err := cmd.Wait()
			if hung.Load() {
				t.Fatalf("planc check did not end on %v", sig)
			}
			if code := exitCode(t, err); code != exitInterrupted || se.String() != "planc check: interrupted\n" {
				t.Errorf("exit %d (%v), stderr %q; want %d and one line", code, err, se.String(), exitInterrupted)
			}
		})
	}
}
