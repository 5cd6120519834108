package cgroups

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
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// RecordOwner marks the scope dir as this process's.
func RecordOwner(dir string) error {
	rec, err := ProcRecord(os.Getpid())
	if err != nil {
		return err
	}
	ns, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return err
	}
	return unix.Setxattr(dir, XattrOwner, []byte(rec+" "+ns), 0)
}

// ReadRecord returns the record name on dir, split in its fields.
func ReadRecord(dir, name string) ([]string, bool) {
	buf := make([]byte, 128)
	n, err := unix.Getxattr(dir, name, buf)
	if err != nil {
		return nil, false
	}
	f := strings.Fields(string(buf[:n]))
	return f, len(f) >= 2
}

// Ended reports whether the process a record names (PID START [PIDNS]) has
// ended. A record from another PID namespace, or one that cannot be read,
// is taken for a live process.
func Ended(rec []string) bool {
	if len(rec) > 2 {
		if ns, err := os.Readlink("/proc/self/ns/pid"); err != nil || ns != rec[2] {
			return false
		}
	}
	pid, err := strconv.Atoi(rec[0])
	if err != nil || pid <= 0 {
		return false
	}
	now, err := ProcRecord(pid)
	return err != nil || now != rec[0]+" "+rec[1]
}

// Sweep ends and removes the scopes in parent whose planc and guardian
// are both gone (see above). A scope that handOff takes (a sub-capsule
// still winds down in it: the sandbox gives it to a new guardian) is left
// to it. It does what it can: a scope it may not remove (another user's)
// stays.
func Sweep(parent string, handOff func(dir string) bool) {
	ents, _ := os.ReadDir(parent)
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "planc-") {
			continue
		}
		dir := filepath.Join(parent, e.Name())
		owner, ok := ReadRecord(dir, XattrOwner)
		if !ok || !Ended(owner) {
			continue
		}
		if g, ok := ReadRecord(dir, XattrGuard); ok && !Ended(g) {
			continue
		}
		if handOff(dir) {
			continue
		}
		Remove(dir)
	}
}

// The extended attributes on a scope's directory that say whose it is.
const (
	// XattrOwner is the planc that made the scope: "PID START PIDNS".
	XattrOwner = "user.planc.owner"
	// XattrGuard is its guardian: "PID START".
	XattrGuard = "user.planc.guard"
	// XattrEnded is when its planc was first found gone, in Unix
	// nanoseconds: the sub-capsules' grace starts there.
	XattrEnded = "user.planc.ended"
)

// MarkEnded returns the time the scope dir was first found without its
// planc, marking it now when no one has.
func MarkEnded(dir string) time.Time {
	buf := make([]byte, 32)
	if n, err := unix.Getxattr(dir, XattrEnded, buf); err == nil {
		if ns, err := strconv.ParseInt(string(buf[:n]), 10, 64); err == nil {
			return time.Unix(0, ns)
		}
	}
	now := time.Now()
	unix.Setxattr(dir, XattrEnded, []byte(strconv.FormatInt(now.UnixNano(), 10)), 0)
	return now
}

// ProcRecord returns "PID START" for the process pid: its start time
// since boot, in clock ticks (field 22 of /proc/PID/stat), tells it from
// any later process with the same pid.
func ProcRecord(pid int) (string, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", err
	}
	// The command name, in parentheses, may hold spaces and parentheses:
	// the fields start after the last ')'.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return "", fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state); field 22 is f[19]. A zombie is gone.
	if len(f) < 20 {
		return "", fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f)+2)
	}
	if f[0] == "Z" || f[0] == "X" {
		return "", fmt.Errorf("process %d has ended", pid)
	}
	return strconv.Itoa(pid) + " " + f[19], nil
}
