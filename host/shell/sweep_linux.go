package shell

// The sweep: OpenScope first removes the scopes that dead plancs left in
// the same cgroup, which their guardians could not (a guardian killed
// with its planc, by systemd stopping the unit, by a step that ran
// without protection, or by the OOM killer).
//
// A scope is swept only when it carries the owner record OpenScope writes
// (xattr user.planc.owner: pid, start time and PID namespace of the planc
// that made it), that planc is gone, and the guardian its record names
// (user.planc.guard) is gone too. A pid alone would not do: pids are
// reused, so a record names the process by its pid and its start time
// since boot, and a process with that pid but another start time is
// another process. A record from another PID namespace cannot be judged,
// and a cgroup without a record (another program's, or one a test made)
// is not planc's to remove.
//
// The sweep does not cut short a sub-capsule's lifeline: while a
// sub-capsule's planc still winds down in the scope, the scope is handed
// to a new guardian (whose lifeline has already ended), which gives the
// sub-capsules what is left of their grace from the time the scope was
// first found without its planc (xattr user.planc.ended) and then ends
// it. Otherwise the sweep kills what is left and removes the scope at
// once.

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// recordOwner marks the scope dir as this process's.
func recordOwner(dir string) error {
	rec, err := procRecord(os.Getpid())
	if err != nil {
		return err
	}
	ns, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return err
	}
	return unix.Setxattr(dir, xattrOwner, []byte(rec+" "+ns), 0)
}

// readRecord returns the record name on dir, split in its fields.
func readRecord(dir, name string) ([]string, bool) {
	buf := make([]byte, 128)
	n, err := unix.Getxattr(dir, name, buf)
	if err != nil {
		return nil, false
	}
	f := strings.Fields(string(buf[:n]))
	return f, len(f) >= 2
}

// ended reports whether the process a record names (PID START [PIDNS]) has
// ended. A record from another PID namespace, or one that cannot be read,
// is taken for a live process.
func ended(rec []string) bool {
	if len(rec) > 2 {
		if ns, err := os.Readlink("/proc/self/ns/pid"); err != nil || ns != rec[2] {
			return false
		}
	}
	pid, err := strconv.Atoi(rec[0])
	if err != nil || pid <= 0 {
		return false
	}
	now, err := procRecord(pid)
	return err != nil || now != rec[0]+" "+rec[1]
}

// sweep ends and removes the scopes in parent whose planc and guardian
// are both gone (see above). It does what it can: a scope it may not
// remove (another user's) stays.
func sweep(parent string) {
	ents, _ := os.ReadDir(parent)
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "planc-") {
			continue
		}
		dir := filepath.Join(parent, e.Name())
		owner, ok := readRecord(dir, xattrOwner)
		if !ok || !ended(owner) {
			continue
		}
		if g, ok := readRecord(dir, xattrGuard); ok && !ended(g) {
			continue
		}
		if windingDown(dir) {
			markEnded(dir)
			if g, err := startGuard(dir, true); err == nil {
				go g.cmd.Wait()
			}
			continue
		}
		clearTree(dir)
	}
}
