package main

// The attacks on the host's kernel knobs and devices through a step's
// view of /proc, /sys and /dev, each a real attack through `planc run` on
// this kernel, as root and as uid 65534 in a delegated cgroup (the
// attackWorld of attack_world_linux_test.go), each after a control that
// shows it works outside the sandbox.

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/planc/planc/internal/testkit"
)

const corePattern = "/proc/sys/kernel/core_pattern"

// keepCorePattern reads core_pattern and puts it back when t ends, should
// anything have changed it.
func keepCorePattern(t *testing.T) []byte {
	t.Helper()
	orig, err := os.ReadFile(corePattern)
	if err != nil {
		t.Skipf("no %s: %v", corePattern, err)
	}
	t.Cleanup(func() {
		if now, _ := os.ReadFile(corePattern); !bytes.Equal(now, orig) {
			if err := os.WriteFile(corePattern, orig, 0); err != nil {
				t.Errorf("restoring %s to %q: %v", corePattern, orig, err)
			}
		}
	})
	return orig
}

// TestAttackCorePattern: a step writes core_pattern (a pipe to a helper
// of its own, which the kernel would run as full root outside every
// namespace) and then crashes a process; it writes the other kernel knobs
// of /proc and /sys, and reads the files runc masks. Every write is
// refused, core_pattern keeps its bytes, the helper never runs, and the
// masked files read empty.
func TestAttackCorePattern(t *testing.T) {
	needRootScope(t)
	orig := keepCorePattern(t)
	t.Run("control", func(t *testing.T) {
		// Outside the sandbox, a root process without CAP_SYS_ADMIN (the
		// capabilities a root step keeps) writes core_pattern: here it
		// writes the same bytes back, changing nothing.
		if _, err := exec.LookPath("setpriv"); err != nil {
			f, err := os.OpenFile(corePattern, os.O_WRONLY, 0)
			if err == nil {
				_, err = f.Write(orig)
				f.Close()
			}
			if err != nil {
				t.Fatalf("root outside the sandbox cannot write %s: %v", corePattern, err)
			}
			return
		}
		cmd := exec.Command("setpriv", "--no-new-privs", "--inh-caps=-all",
			"--bounding-set=-all,+chown,+dac_override,+fowner,+fsetid,+kill,+setgid,+setuid,+net_bind_service,+net_raw",
			"sh", "-c", `cat "$0" > "$0" && cat /proc/timer_list | head -c 1 | wc -c`, corePattern)
		out, err := cmd.CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != "1" {
			t.Fatalf("root without CAP_SYS_ADMIN outside the sandbox: %v\n%s\nwant core_pattern written and /proc/timer_list readable", err, out)
		}
	})
	for _, conf := range attackConfs(t) {
		t.Run(conf.name, func(t *testing.T) {
			w := newAttackWorld(t, conf)
			helper := filepath.Join(w.dir, "helper.sh")
			pwned := filepath.Join(w.dir, "pwned")
			testkit.WriteFiles(t, w.dir, "helper.sh", "#!/bin/sh\ntouch "+pwned+"\n", "knobs.sh", `
# Open for writing (nothing written) every knob that would change the host.
for f in /proc/sys/kernel/modprobe /proc/sysrq-trigger /proc/sys/vm/drop_caches /sys/kernel/uevent_helper /sys/kernel/mm/transparent_hugepage/enabled; do
	[ -e "$f" ] || continue
	if (: >> "$f") 2>/dev/null; then echo "ESCAPED: $f opens for writing"; else echo "blocked: $f"; fi
done
if printf '|%s\n' "$1" > `+corePattern+` 2>/dev/null; then echo "ESCAPED: core_pattern written"; else echo "blocked: core_pattern"; fi
# The crash that would run the helper.
(ulimit -c unlimited 2>/dev/null; exec sh -c 'kill -SEGV $$')
for f in /proc/timer_list /proc/interrupts /proc/keys /proc/sched_debug /proc/kcore; do
	[ -e "$f" ] || continue
	if [ "$(head -c 1 "$f" 2>/dev/null | wc -c)" -ne 0 ]; then echo "ESCAPED: $f readable"; else echo "blocked: $f masked"; fi
done
if [ -n "$(ls -A /sys/firmware 2>/dev/null)" ]; then echo "ESCAPED: /sys/firmware listed"; else echo "blocked: /sys/firmware masked"; fi
`)
			os.Chmod(helper, 0o755)
			w.after = func(t *testing.T) {
				if now, err := os.ReadFile(corePattern); err != nil || !bytes.Equal(now, orig) {
					t.Errorf("%s: %q, %v; want %q", corePattern, now, err, orig)
				}
				if _, err := os.Stat(pwned); err == nil {
					t.Error("the kernel ran the step's core helper")
				}
			}
			w.run(t, []string{"sh knobs.sh " + helper})
		})
	}
}

// TestAttackTerminal: a step opens the user's terminal, /dev/pts/N (as
// its owner could) and /dev/tty, and writes an OSC 52 clipboard sequence
// and a title: it finds neither, and the terminal reads nothing.
func TestAttackTerminal(t *testing.T) {
	needRootScope(t)
	for _, conf := range append([]attackConf{{name: "control"}}, attackConfs(t)...) {
		t.Run(conf.name, func(t *testing.T) {
			master, pts := openPty(t)
			if conf.nonRoot {
				if err := os.Chown(pts, 65534, 65534); err != nil {
					t.Fatal(err)
				}
			}
			const seq = "\x1b]52;c;cGxhbmM=\x07\x1b]0;owned\x07"
			if conf.name == "control" {
				// Outside the sandbox, the terminal's owner writes it.
				if err := os.WriteFile(pts, []byte(seq), 0); err != nil {
					t.Fatal(err)
				}
				if got := readPty(t, master); !strings.Contains(got, "52;c;") {
					t.Fatalf("the control's sequence did not reach the terminal: %q", got)
				}
				return
			}
			w := newAttackWorld(t, conf)
			testkit.WriteFiles(t, w.dir, "tty.sh", `
for f in "$1" /dev/tty /dev/console; do
	[ -c "$f" ] || { echo "blocked: no $f"; continue; }
	if printf '`+strings.ReplaceAll(seq, "\x1b", `\033`)+`' > "$f" 2>/dev/null; then echo "ESCAPED: wrote $f"; else echo "blocked: $f"; fi
done
`)
			w.run(t, []string{"sh tty.sh " + pts})
			if got := readPty(t, master); got != "" {
				t.Errorf("the terminal read %q from the step", got)
			}
		})
	}
}

// openPty opens a new pseudo-terminal of the host and returns its master
// and the path of its other end, /dev/pts/N.
func openPty(t *testing.T) (int, string) {
	t.Helper()
	m, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { unix.Close(m) })
	if err := unix.IoctlSetPointerInt(m, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(m, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	pts := "/dev/pts/" + strconv.Itoa(n)
	// The terminal stays open on this side, so that what is written to it
	// waits to be read.
	s, err := unix.Open(pts, unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(s) })
	return m, pts
}

// readPty returns what waits on the master m, without waiting.
func readPty(t *testing.T, m int) string {
	t.Helper()
	var out []byte
	buf := make([]byte, 4096)
	for {
		n, err := unix.Read(m, buf)
		if n > 0 {
			out = append(out, buf[:n]...)
			continue
		}
		if err != nil && err != unix.EAGAIN && err != unix.EIO {
			t.Fatal(err)
		}
		return string(out)
	}
}
