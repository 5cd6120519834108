package main

// The attacks of a tool-only plan, under the embedded default capsule
// (no shell step, no --capsule), on what planc itself can reach: the
// built-in tools run inside planc, with its privileges and its
// environment, so they are confined to the working directory and the
// session and refuse every file that is not a regular file of an
// ordinary file system.

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/planc/planc/host/sandbox/cgroups"
	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/vm"
)

// toolSecret is in planc's environment in these tests: no tool may return it.
const toolSecret = "PLANC_ATTACK_API_KEY=tool-attack-secret-4f9a"

// TestAttackToolsKernelFiles: read-file of /proc/self/environ (planc's
// own secrets), of a link to it, of /dev/zero (endless) and of a FIFO
// (which would hang the plan), and write-file of core_pattern and of
// /sys, all fail with a refusal, as root and as uid 65534 in a delegated
// cgroup, and in a working directory that holds /proc itself (planc run
// in /, root); a plain file beside them still reads.
func TestAttackToolsKernelFiles(t *testing.T) {
	needRootScope(t)
	orig := keepCorePattern(t)
	t.Run("control", func(t *testing.T) {
		// Outside planc, a process reads its environment from /proc.
		cmd := exec.Command("cat", "/proc/self/environ")
		cmd.Env = append(os.Environ(), toolSecret)
		out, err := cmd.Output()
		if err != nil || !bytes.Contains(out, []byte(toolSecret)) {
			t.Fatalf("cat /proc/self/environ: %v; the secret is not in it", err)
		}
		// And root writes core_pattern (its own bytes back).
		if err := os.WriteFile(corePattern, orig, 0); err != nil {
			t.Fatalf("root cannot write %s: %v", corePattern, err)
		}
	})
	type conf struct {
		name    string
		nonRoot bool
		root    bool // planc runs in /, where /proc lies beneath the working directory
	}
	for _, c := range []conf{{"root", false, false}, {"nonroot", true, false}, {"workdir-is-root", false, true}} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for d := dir; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
				os.Chmod(d, 0o755)
			}
			testkit.WriteFiles(t, dir, "plain.txt", "plain\n")
			if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o666); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("/proc/self/environ", filepath.Join(dir, "env-link")); err != nil {
				t.Fatal(err)
			}
			p := func(s string) string { return s }
			if c.root {
				// Paths relative to /, beneath the working directory.
				p = func(s string) string { return strings.TrimPrefix(s, "/") }
			}
			steps := []map[string]any{
				{"id": "environ", "tool": "read-file", "input": map[string]string{"path": p("/proc/self/environ")}},
				{"id": "link", "tool": "read-file", "input": map[string]string{"path": filepath.Join(dir, "env-link")}},
				{"id": "zero", "tool": "read-file", "input": map[string]string{"path": p("/dev/zero")}},
				{"id": "fifo", "tool": "read-file", "input": map[string]string{"path": filepath.Join(dir, "fifo")}},
				{"id": "core", "tool": "write-file", "input": map[string]string{"path": p(corePattern), "content": "|/bin/false"}},
				{"id": "sys", "tool": "write-file", "input": map[string]string{"path": p(sysKnob(t)), "content": "planc-not-a-value"}},
				{"id": "plain", "tool": "read-file", "input": map[string]string{"path": filepath.Join(dir, "plain.txt")}},
			}
			for _, s := range steps {
				s["on_error"] = "continue"
			}
			plan, _ := json.Marshal(map[string]any{"id": "tools", "steps": steps})
			testkit.WriteFiles(t, dir, "plan.json", string(plan))
			sess := filepath.Join(dir, "sess")
			cmd := plancCmd(t, dir, "--session", sess, filepath.Join(dir, "plan.json"))
			if c.root {
				cmd.Dir = "/"
			}
			cmd.Env = append(os.Environ(), toolSecret)
			if c.nonRoot {
				filepathWalkChown(dir)
				own, err := cgroups.OwnDir()
				if err != nil {
					t.Fatal(err)
				}
				_, fd, done := testkit.DelegatedCgroup(t, own)
				defer done()
				asNobody(cmd)
				cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, fd
			}
			var so, se strings.Builder
			cmd.Stdout, cmd.Stderr = &so, &se
			r := runOut{"", "", exitCode(t, cmd.Run())}
			r.stdout, r.stderr = so.String(), se.String()
			if strings.Contains(r.stdout+r.stderr, "tool-attack-secret") {
				t.Errorf("planc's secret reached the report:\n%s\n%s", r.stdout, r.stderr)
			}
			want := map[string]string{
				"environ": "/proc", "link": "symbolic link", "zero": "/dev", "fifo": "a FIFO",
				"core": "/proc", "sys": "sysfs",
			}
			if !c.root {
				want["environ"], want["zero"], want["core"], want["sys"] = "outside the working directory", "outside the working directory", "outside the working directory", "outside the working directory"
			}
			for _, s := range r.report(t).Steps {
				t.Logf("%s: %s %s", s.StepID, s.Status, deref(s.Error))
				if s.StepID == "plain" {
					if s.Status != vm.StatusSuccess || deref(s.Output) != "plain\n" {
						t.Errorf("plain: %s %s %q; want it read", s.Status, deref(s.Error), deref(s.Output))
					}
					continue
				}
				if s.Status != vm.StatusFailed || !strings.Contains(deref(s.Error), want[s.StepID]) {
					t.Errorf("%s: %s, %s; want it refused (%q)", s.StepID, s.Status, deref(s.Error), want[s.StepID])
				}
			}
			if now, err := os.ReadFile(corePattern); err != nil || !bytes.Equal(now, orig) {
				t.Errorf("%s: %q, %v; want %q", corePattern, now, err, orig)
			}
			kept, _ := filepath.Glob(filepath.Join(sess, "outputs", "*", "*"))
			for _, f := range kept {
				if b, _ := os.ReadFile(f); bytes.Contains(b, []byte("tool-attack-secret")) {
					t.Errorf("planc's secret was kept in %s", f)
				}
			}
		})
	}
}

// sysKnob is a file of /sys that root may write (a write of a value the
// kernel does not know fails there, changing nothing).
func sysKnob(t *testing.T) string {
	for _, f := range []string{"/sys/kernel/uevent_helper", "/sys/kernel/mm/transparent_hugepage/enabled", "/sys/kernel/profiling"} {
		if _, err := os.Stat(f); err == nil {
			return f
		}
	}
	t.Skip("no writable file of /sys known here")
	return ""
}

// filepathWalkChown gives everything under dir to uid 65534.
func filepathWalkChown(dir string) {
	filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err == nil {
			os.Lchown(p, 65534, 65534)
		}
		return nil
	})
}

// TestToolCallEndsOnCancel: a tool step running in its call (an MCP tool
// reading a FIFO) when the first SIGTERM or SIGINT lands runs on to its
// own result (S22, docs/plans.md "Cancel"): answered after the cancel, it
// settles success with the answer. Blocked for good (a FIFO no one
// writes), it is ended when its grace runs out: it settles failed with
// ToolEnded, the plan ends canceled, planc exits, and the server is gone.
func TestToolCallEndsOnCancel(t *testing.T) {
	t.Parallel()
	testkit.NeedScope(t)
	bin := mcpServerBin(t)
	asUsers(t, func(t *testing.T, conf attackConf) { toolCallEndsOnCancel(t, conf, bin) })
}

// toolCallEndsOnCancel is TestToolCallEndsOnCancel with planc run as
// conf says.
func toolCallEndsOnCancel(t *testing.T, conf attackConf, bin string) {
	for _, tc := range []struct {
		sig    syscall.Signal
		answer bool // the FIFO is written once the cancel has landed
	}{{syscall.SIGTERM, false}, {syscall.SIGINT, false}, {syscall.SIGINT, true}} {
		name := tc.sig.String()
		if tc.answer {
			name += "/answered"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := nobodyDir(t)
			fifo := filepath.Join(dir, "fifo")
			if err := syscall.Mkfifo(fifo, 0o666); err != nil {
				t.Fatal(err)
			}
			testkit.WriteFiles(t, dir, "capsule.json", mcpCapsule("demo", []string{bin}), "plan.json", `{"id": "held", "steps": [
				{"id": "wait", "tool": "read", "input": {"path": "fifo"}},
				{"id": "after", "tool": "notes", "depends_on": ["wait"], "input": {"body": "$wait.output"}}]}`)
			// No second signal comes, as plancCmd's would after its bound:
			// the first must end the run. A planc that hangs is killed
			// after a generous bound, which fails the test.
			cmd := exec.Command(plancBin(t), "run", "--capsule", "capsule.json", "plan.json")
			cmd.Dir = dir
			done := prepareAs(t, conf, cmd, nil)
			defer done()
			var so, se strings.Builder
			cmd.Stdout, cmd.Stderr = &so, &se
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var hung atomic.Bool
			watchdog := time.AfterFunc(45*time.Second, func() { hung.Store(true); cmd.Process.Kill() })
			defer watchdog.Stop()
			// The call is blocked once the server has the FIFO open to read.
			var f *os.File
			for {
				var err error
				f, err = os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0)
				if err == nil {
					// Held open: the read stays blocked until it is closed.
					defer f.Close()
					break
				}
				if !errors.Is(err, syscall.ENXIO) {
					t.Fatal(err)
				}
				syscall.Select(0, nil, nil, nil, &syscall.Timeval{Usec: 10_000})
			}
			cmd.Process.Signal(tc.sig)
			if tc.answer {
				// The cancel has landed once the step after it is skipped.
				waitTraceLine(t, dir, `"step_id":"after","status":"skipped"`)
				f.WriteString("answered late")
				f.Close()
			}
			r := runOut{"", "", exitCode(t, cmd.Wait())}
			if hung.Load() {
				t.Fatalf("planc did not end on the first %v:\n%s", tc.sig, se.String())
			}
			r.stdout, r.stderr = so.String(), se.String()
			rep := r.report(t)
			if !rep.Canceled || r.code != exitCanceled || len(rep.Steps) != 2 {
				t.Fatalf("exit %d, report %+v; want the plan canceled (exit %d) with both steps\n%s", r.code, rep, exitCanceled, r.stderr)
			}
			for _, s := range rep.Steps {
				switch {
				case s.StepID == "after":
					if s.Status != vm.StatusSkipped || deref(s.Error) != vm.CanceledBeforeRun {
						t.Errorf("after: %s %q; want skipped, %q", s.Status, deref(s.Error), vm.CanceledBeforeRun)
					}
				case tc.answer:
					if s.Status != vm.StatusSuccess || deref(s.Output) != "answered late" {
						t.Errorf("wait: %s, output %q, error %q; want its own result, success with the answer", s.Status, deref(s.Output), deref(s.Error))
					}
				case s.Status != vm.StatusFailed || deref(s.Error) != vm.ToolEnded:
					t.Errorf("wait: %s %q; want failed, %q", s.Status, deref(s.Error), vm.ToolEnded)
				}
			}
			noServerLeft(t, bin)
		})
	}
}

// waitTraceLine waits until the trace of the one session under dir has a
// line containing want; past testkit's patience, which only a hung or
// broken planc reaches, it fails the test.
func waitTraceLine(t *testing.T, dir, want string) {
	t.Helper()
	if !testkit.Within(0, func() bool {
		traces, _ := filepath.Glob(filepath.Join(dir, ".planc", "sessions", "*", "trace.jsonl"))
		for _, p := range traces {
			if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), want) {
				return true
			}
		}
		return false
	}) {
		t.Fatalf("no trace line with %s", want)
	}
}
