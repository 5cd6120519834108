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

// TestCheckInterruptedReading: planc check, graph and dump-ir blocked
// reading the plan (a FIFO no one opens to write) end on the first SIGINT
// or SIGTERM, with exit status 130 and one line on standard error, rather
// than hang until SIGKILL.
func TestCheckInterruptedReading(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		cmd string
		sig syscall.Signal
	}{{"check", syscall.SIGINT}, {"check", syscall.SIGTERM}, {"graph", syscall.SIGINT}, {"dump-ir", syscall.SIGTERM}} {
		sig := tc.sig
		t.Run(tc.cmd+"/"+sig.String(), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			fifo := filepath.Join(dir, "plan.json")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(plancBin(t), tc.cmd, "plan.json")
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
				t.Fatalf("planc %s never blocked in the FIFO's open", tc.cmd)
			}
			cmd.Process.Signal(sig)
			// A planc that ignores the signal is killed after a generous
			// bound, which fails the test.
			var hung atomic.Bool
			watchdog := time.AfterFunc(30*time.Second, func() { hung.Store(true); cmd.Process.Kill() })
			defer watchdog.Stop()
			err := cmd.Wait()
			if hung.Load() {
				t.Fatalf("planc %s did not end on %v", tc.cmd, sig)
			}
			if code := exitCode(t, err); code != exitInterrupted || se.String() != "planc "+tc.cmd+": interrupted\n" {
				t.Errorf("exit %d (%v), stderr %q; want %d and one line", code, err, se.String(), exitInterrupted)
			}
		})
	}
}
