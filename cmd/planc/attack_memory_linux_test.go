package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/planc/planc/internal/testkit"
)

// TestRunOutputMemory: a step that prints 1 GB streams it to its kept
// file; planc itself stays under 200 MB (its VmHWM, the peak resident set
// of its own memory, read once the step has settled and its output is
// kept, and again while the plan ends), and the report carries the first
// 64 KiB. As root and as uid 65534 in a delegated cgroup; each logs
// planc's peak. (The wait status's Maxrss would not do: the kernel counts
// in it the test process's own peak, which planc's start shares before
// exec.)
func TestRunOutputMemory(t *testing.T) {
	testkit.NeedScope(t)
	t.Parallel()
	if testing.Short() {
		t.Skip("writes 1 GB")
	}
	asUsers(t, func(t *testing.T, conf attackConf) {
		dir := inodeWorld(t)
		sess := filepath.Join(dir, "sess")
		testkit.WriteFiles(t, dir, "capsule.json", `{"name": "local/whole", "capabilities": {"plan": {"submit": true}, "shell": {"allow": ["sh"]}}}`,
			"plan.json", `{"id": "flood", "steps": [
		{"id": "flood", "shell": "sh -c 'yes | head -c 1000000000'"},
		{"id": "hold", "shell": "sh -c 'until [ -e release ]; do sleep 0.05; done'", "depends_on": ["flood"]}
	]}`)
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, plancBin(t), "run", "--capsule", "capsule.json", "--session", sess, "plan.json")
		cmd.Dir = dir
		cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) } // planc ends its scope
		cmd.WaitDelay = 10 * time.Second
		done := prepareAs(t, conf, cmd, nil)
		var so, se strings.Builder
		cmd.Stdout, cmd.Stderr = &so, &se
		if err := cmd.Start(); err != nil {
			done()
			t.Fatal(err)
		}
		status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
		var peak atomic.Int64
		hwm := func() {
			b, _ := os.ReadFile(status)
			for _, l := range strings.Split(string(b), "\n") {
				if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
					kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
					peak.Store(max(peak.Load(), kb<<10))
				}
			}
		}
		// The step settles, its output kept: read planc's peak so far.
		settled := testkit.Within(4*time.Minute, func() bool {
			b, _ := os.ReadFile(filepath.Join(sess, "trace.jsonl"))
			return strings.Contains(string(b), `"event":"plan_step","session"`) && strings.Contains(string(b), `"step_id":"flood","status"`)
		})
		hwm()
		measured := peak.Load()
		stop := make(chan struct{})
		polled := make(chan struct{})
		go func() { // and while the plan ends, as long as planc is there
			defer close(polled)
			for {
				select {
				case <-stop:
					return
				case <-time.After(5 * time.Millisecond):
					hwm()
				}
			}
		}()
		testkit.WriteFiles(t, dir, "release", "")
		os.Lchown(filepath.Join(dir, "release"), 65534, 65534)
		err := cmd.Wait()
		close(stop)
		<-polled
		done()
		if !settled {
			t.Fatalf("flood did not settle; stderr:\n%s", se.String())
		}
		if code := exitCode(t, err); code != 0 {
			t.Fatalf("exit %d\n%s", code, se.String())
		}
		t.Logf("%s: planc's peak resident set while a step printed 1 GB: %d MB (%d MB once the step settled)", conf.name, peak.Load()>>20, measured>>20)
		// The measure is planc's: more than a process that does nothing.
		if measured < 5<<20 || peak.Load() >= 200<<20 {
			t.Errorf("peak resident set %d bytes (%d once the step settled), want between 5 MB and 200 MB", peak.Load(), measured)
		}
		kept := filepath.Join(sess, "outputs", "plan-1", "flood.1.txt")
		if fi, err := os.Stat(kept); err != nil || fi.Size() != 1e9 {
			t.Errorf("kept output %v, %v", fi, err)
		}
		os.Remove(kept)
		r := runOut{stdout: so.String()}
		o := r.report(t).Steps[0].Output
		if o == nil || !strings.HasPrefix(*o, strings.Repeat("y\n", 100)) || !strings.HasSuffix(*o, "[cut: 1000000000 bytes in all; whole text at sess/outputs/plan-1/flood.1.txt]") {
			end := deref(o)
			if len(end) > 200 {
				end = end[len(end)-200:]
			}
			t.Errorf("report output ends %q", end)
		}
	})
}
