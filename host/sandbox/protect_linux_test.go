package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/planc/planc/host/sandbox/shim"
	"golang.org/x/sys/unix"
)

// protectTree makes a working directory W holding a protected file, a
// protected directory, a sibling directory and a session directory whose
// plans/ is protected, and returns W and the protected paths.
func protectTree(t *testing.T) (string, []string) {
	t.Helper()
	w := t.TempDir()
	plans := filepath.Join(w, ".planc", "sessions", "s1", "plans")
	for _, d := range []string{"rodir/sub", "sib", plans} {
		if err := os.MkdirAll(filepath.Join(w, strings.TrimPrefix(d, w)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"ro.txt", "rodir/f.txt", "rodir/sub/g.txt", ".planc/sessions/s1/plans/plan-1.json", ".planc/sessions/s1/trace.jsonl"} {
		if err := os.WriteFile(filepath.Join(w, f), []byte("original\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return w, []string{filepath.Join(w, "ro.txt"), filepath.Join(w, "rodir"), plans}
}

// checkIntact fails t unless every protected file of protectTree is there
// with its original content.
func checkIntact(t *testing.T, w string) {
	t.Helper()
	for _, f := range []string{"ro.txt", "rodir/f.txt", "rodir/sub/g.txt", ".planc/sessions/s1/plans/plan-1.json"} {
		b, err := os.ReadFile(filepath.Join(w, f))
		if err != nil || string(b) != "original\n" {
			t.Errorf("%s: %q, %v; want it intact", f, b, err)
		}
	}
	for _, f := range []string{"rodir/new", "rodir/sub/new", ".planc/sessions/s1/plans/plan-2.json"} {
		if _, err := os.Lstat(filepath.Join(w, f)); err == nil {
			t.Errorf("%s was created in a protected directory", f)
		}
	}
}

// A step cannot write, truncate, replace, rename or delete a protected
// path, nor create anything in a protected directory, by any of the usual
// routes and a few unusual ones; and it can still create and write files
// everywhere else, the working directory that holds them included.
func TestProtect(t *testing.T) {
	for _, lock := range locks() {
		for _, perStep := range []bool{false, true} {
			name := lock + "/spawner"
			if perStep {
				name = lock + "/shim per step"
			}
			t.Run(name, func(t *testing.T) {
				s := protectedScope(t)
				s.sys.perStep, s.sys.lock = perStep, lock
				testProtect(t, s)
			})
		}
	}
}

// locks returns the locks this kernel offers.
func locks() []string {
	if LandlockABI() >= 1 {
		return []string{shim.LockLandlock, shim.LockCaps}
	}
	return []string{shim.LockCaps}
}

func testProtect(t *testing.T, s *Scope) {
	w, protect := protectTree(t)
	tmp := t.TempDir()
	self := strconv.Itoa(os.Getpid())
	denied := map[string]string{
		"append":             `echo x >> ro.txt`,
		"overwrite":          `echo x > ro.txt`,
		"truncate":           `truncate -s 0 ro.txt`,
		"truncate redirect":  `: > ro.txt`,
		"rename over":        `echo y > new.txt && mv -f new.txt ro.txt`,
		"rename over (dir)":  `echo y > rodir2 && mv -f rodir2 rodir/f.txt`,
		"delete":             `rm -f ro.txt`,
		"rename away":        `mv ro.txt moved.txt`,
		"delete in dir":      `rm -f rodir/f.txt`,
		"delete tree":        `rm -rf rodir`,
		"rename dir":         `mv rodir rodir.old`,
		"rename ancestor":    `mv .planc/sessions/s1 .planc/sessions/s2; mkdir -p .planc/sessions/s1/plans && echo x > .planc/sessions/s1/plans/plan-1.json`,
		"rename working dir": `cd .. && mv ` + w + ` ` + w + `.aside; mkdir -p ` + w + `/rodir && echo x > ` + w + `/rodir/f.txt`,
		"create in dir":      `echo x > rodir/new`,
		"create in subdir":   `echo x > rodir/sub/new`,
		"mkdir in dir":       `mkdir rodir/new`,
		"write deep":         `echo x >> rodir/sub/g.txt`,
		"sed -i":             `sed -i s/original/changed/ rodir/f.txt`,
		"plan file":          `echo x > .planc/sessions/s1/plans/plan-1.json`,
		"new plan file":      `echo x > .planc/sessions/s1/plans/plan-2.json`,
		"delete session":     `rm -rf .planc`,
		"chmod":              `chmod 777 ro.txt`,
		"hard link out":      `ln ro.txt ` + tmp + `/link && echo x >> ` + tmp + `/link`,
		"symlink route":      `ln -s ` + w + `/ro.txt ` + tmp + `/sym && echo x >> ` + tmp + `/sym`,
		"umount":             `umount -l rodir; umount -l ro.txt; echo x > rodir/new`,
		"remount rw":         `mount -o remount,rw,bind rodir; echo x > rodir/new`,
		"proc root of planc": `echo x >> /proc/` + self + `/root` + w + `/ro.txt`,
		"proc root of init":  `echo x >> /proc/1/root` + w + `/ro.txt`,
		"nsenter":            `nsenter -t 1 -m sh -c 'echo x >> ` + w + `/ro.txt'`,
		"new namespace":      `unshare -m sh -c 'umount -l ` + w + `/ro.txt; echo x >> ` + w + `/ro.txt'`,
	}
	for name, script := range denied {
		t.Run("denied/"+name, func(t *testing.T) {
			r := sh(s, w, script, protect...)
			if r.Err == nil {
				t.Errorf("%s succeeded: %s", script, r.Output)
			}
			t.Logf("%s: %v: %s", script, r.Err, strings.TrimSpace(string(r.Output)))
			checkIntact(t, w)
		})
	}

	allowed := map[string]string{
		"new file in work dir": `echo ok > new.txt && echo more >> new.txt && test "$(cat new.txt)" = "ok
more"`,
		"target dir in work dir": `mkdir -p target/debug && echo ok > target/debug/out && : > target/debug/out`,
		"rename in work dir":     `echo ok > a.txt && mv a.txt b.txt && rm b.txt`,
		"sibling dir":            `echo ok > sib/f && rm sib/f && mkdir sib/d && rmdir sib/d`,
		"session dir":            `echo '{}' >> .planc/sessions/s1/trace.jsonl && echo x > .planc/sessions/s1/notes.md`,
		"tmp":                    `f=$(mktemp) && echo ok > "$f" && rm "$f" && echo ok > ` + tmp + `/f`,
		"rename across":          `echo ok > ` + tmp + `/g && mv ` + tmp + `/g sib/g`,
		"read protected":         `cat ro.txt rodir/f.txt .planc/sessions/s1/plans/plan-1.json >/dev/null && ls rodir/sub`,
	}
	for name, script := range allowed {
		t.Run("allowed/"+name, func(t *testing.T) {
			if r := sh(s, w, script, protect...); r.Err != nil {
				t.Errorf("%s: %v: %s", script, r.Err, r.Output)
			}
		})
	}
	checkIntact(t, w)
}

// The protected paths are read-only for the step only: nothing it mounts
// shows outside, and this process can still write them.
func TestProtectIsPrivate(t *testing.T) {
	s := protectedScope(t)
	w, protect := protectTree(t)
	// The three read-only binds, and the directories above them inside
	// w, each bound onto itself: w, .planc, .planc/sessions and
	// .planc/sessions/s1.
	if r := sh(s, w, `grep -c "`+w+`" /proc/self/mountinfo`, protect...); r.Err != nil || strings.TrimSpace(string(r.Output)) != "7" {
		t.Fatalf("mounts in the step: %q, %v; want 7", r.Output, r.Err)
	}
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(mi), w) {
		t.Fatalf("a step's mount shows outside it:\n%s", mi)
	}
	if err := os.WriteFile(protect[0], []byte("original\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A failed set-up fails the step with its reason, and runs nothing.
func TestProtectSetupFailure(t *testing.T) {
	s := protectedScope(t)
	s.sys.lock = "bogus"
	w, protect := protectTree(t)
	const want = `cannot run "sh": protecting the step's read-only paths: unknown lock "bogus"`
	for _, perStep := range []bool{false, true} {
		s.sys.perStep = perStep
		r := sh(s, w, `echo ran > ran.txt`, protect...)
		if r.Err == nil || r.Err.Error() != want {
			t.Fatalf("per step %v: got %+v", perStep, r)
		}
		if _, err := os.Stat(filepath.Join(w, "ran.txt")); err == nil {
			t.Fatal("the step ran")
		}
	}
	if r := s.Run(context.Background(), Spec{Argv: []string{"true"}, Protect: []string{"rel"}}); r.Err == nil || !strings.Contains(r.Err.Error(), "not absolute") {
		t.Fatalf("relative protected path: %v", r.Err)
	}
}

// TestLandlockABI: LandlockABI says what the kernel does: when it names
// an ABI, a ruleset handling execution can be made; when it says 0, none
// can.
func TestLandlockABI(t *testing.T) {
	abi := LandlockABI()
	attr := unix.LandlockRulesetAttr{Handled_access_fs: unix.LANDLOCK_ACCESS_FS_EXECUTE}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno == 0 {
		unix.Close(int(fd))
	}
	t.Logf("Landlock ABI %d; a ruleset: %v", abi, errno)
	switch {
	case abi < 0:
		t.Fatalf("LandlockABI() = %d", abi)
	case abi > 0 && errno != 0 && errno != unix.E2BIG:
		t.Errorf("LandlockABI() = %d, yet no ruleset can be made: %v", abi, errno)
	case abi == 0 && errno == 0:
		t.Errorf("LandlockABI() = 0, yet a ruleset was made")
	}
}
