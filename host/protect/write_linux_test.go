package protect

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
)

// writeTree makes dir/ro/keep, dir/ro/sub/, dir/plan (mode 0444),
// dir/safe and dir/work/, and returns dir (symbolic links followed) and
// the Set protecting ro and plan.
func writeTree(t *testing.T) (string, *Set) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"ro/sub", "work"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, mode := range map[string]os.FileMode{"ro/keep": 0o644, "plan": 0o444, "safe": 0o644} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("orig"), mode); err != nil {
			t.Fatal(err)
		}
	}
	return dir, NewSet([]string{filepath.Join(dir, "ro"), filepath.Join(dir, "plan")}, nil)
}

// writeAt writes data to name beneath dir with OpenWrite, and MkdirAll
// when its directory is missing, as write-file does.
func writeAt(dir, name, data string, set *Set) error {
	const flag = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	f, err := OpenWrite(dir, name, flag, 0o644, set)
	if errors.Is(err, os.ErrNotExist) {
		if err := MkdirAll(dir, filepath.Dir(name), 0o755, set); err != nil {
			return err
		}
		f, err = OpenWrite(dir, name, flag, 0o644, set)
	}
	if err != nil {
		return err
	}
	_, err = f.WriteString(data)
	return errors.Join(err, f.Close())
}

// unchanged fails the test when a file of writeTree's protected set was
// changed.
func unchanged(t *testing.T, dir string) {
	t.Helper()
	for _, name := range []string{"ro/keep", "plan"} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != "orig" {
			t.Errorf("%s was changed: %q %v", name, b, err)
		}
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "ro")); len(ents) != 2 {
		t.Errorf("ro/ has %d entries, want keep and sub", len(ents))
	}
}

func TestOpenWrite(t *testing.T) {
	for _, walk := range []bool{false, true} {
		name := "openat2"
		if walk {
			name = "walk"
		}
		t.Run(name, func(t *testing.T) {
			old := noOpenat2.Load()
			noOpenat2.Store(walk)
			t.Cleanup(func() { noOpenat2.Store(old) })
			testOpenWrite(t)
		})
	}
}

func testOpenWrite(t *testing.T) {
	dir, set := writeTree(t)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink("ro/keep", filepath.Join(dir, "work/leaf")))
	must(os.Symlink("../ro", filepath.Join(dir, "work/dirlink")))
	must(os.Symlink(filepath.Join(dir, "safe"), filepath.Join(dir, "work/tosafe")))
	must(os.Link(filepath.Join(dir, "plan"), filepath.Join(dir, "work/hard")))
	must(os.Link(filepath.Join(dir, "ro/keep"), filepath.Join(dir, "work/hardro")))
	must(os.WriteFile(filepath.Join(dir, "work/two"), nil, 0o644))
	must(os.Link(filepath.Join(dir, "work/two"), filepath.Join(dir, "work/two2")))
	must(syscall.Mkfifo(filepath.Join(dir, "work/fifo"), 0o644))
	// A directory above a protected one renamed after the Set was made:
	// its path is no longer the Set's, its identity is.
	must(os.MkdirAll(filepath.Join(dir, "up/prot"), 0o755))
	set = NewSet(append(pathsOf(set), filepath.Join(dir, "up/prot")), nil)
	must(os.Rename(filepath.Join(dir, "up"), filepath.Join(dir, "moved")))

	var symlink *SymlinkError
	var prot *ProtectedError
	for _, tc := range []struct {
		name string
		ok   bool
		is   any    // *SymlinkError or *ProtectedError, or nil
		msg  string // in the error
	}{
		{name: "work/new.txt", ok: true},
		{name: "work/deep/er/new.txt", ok: true},
		{name: "safe", ok: true},
		{name: "work/leaf", is: &symlink, msg: `"work/leaf" goes through a symbolic link ("work/leaf" is one)`},
		{name: "work/dirlink/keep", is: &symlink, msg: `write to the path it resolves to, "` + dir + `/ro/keep"`},
		{name: "work/dirlink/new", is: &symlink},
		{name: "work/tosafe", is: &symlink},
		{name: "ro/keep", is: &prot, msg: `is the protected path "` + dir + `/ro" or lies under it`},
		{name: "ro/new", is: &prot},
		{name: "ro/sub/new", is: &prot},
		{name: "ro/sub/more/new", is: &prot},
		{name: "plan", is: &prot},
		{name: "work/hard", is: &prot, msg: `"work/hard" (as opened, "` + dir + `/work/hard") is the protected path "` + dir + `/plan"`},
		{name: "work/hardro", is: &prot, msg: `is a hard link to a file under the protected path "` + dir + `/ro"`},
		{name: "work/two", ok: true}, // two names, neither protected
		{name: "moved/prot/x", is: &prot},
		{name: "moved/prot/a/b", is: &prot},
		{name: "work/fifo", msg: "not a regular file"},
		{name: "../safe", msg: "not a path beneath"},
		{name: "/etc/x", msg: "not a path beneath"},
	} {
		err := writeAt(dir, tc.name, "new", set)
		switch {
		case tc.ok && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.ok:
			if b, _ := os.ReadFile(filepath.Join(dir, tc.name)); string(b) != "new" {
				t.Errorf("%s holds %q", tc.name, b)
			}
		case err == nil:
			t.Errorf("%s: written", tc.name)
		case tc.is == &symlink && !errors.As(err, &symlink), tc.is == &prot && !errors.As(err, &prot):
			t.Errorf("%s: %T %v", tc.name, err, err)
		case !strings.Contains(err.Error(), tc.msg):
			t.Errorf("%s: %v, want %q in it", tc.name, err, tc.msg)
		}
	}
	unchanged(t, dir)
	for _, p := range []string{"ro/new", "ro/sub/more", "moved/prot/x", "moved/prot/a"} {
		if _, err := os.Lstat(filepath.Join(dir, p)); err == nil {
			t.Errorf("%s was made", p)
		}
	}
	// A mode without write bits holds for root too; truncation waits for
	// the checks.
	must(os.WriteFile(filepath.Join(dir, "work/ro.txt"), []byte("orig"), 0o444))
	if _, err := OpenWrite(dir, "work/ro.txt", os.O_WRONLY|os.O_TRUNC, 0, nil); err == nil || !strings.Contains(err.Error(), "read-only (mode 0444)") {
		t.Errorf("a 0444 file: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "work/ro.txt")); string(b) != "orig" {
		t.Errorf("the 0444 file was changed: %q", b)
	}
}

// TestOpenWriteLinksTooMany: when the protected directories are too big
// to look for hard links in, a file with more than one name is refused.
func TestOpenWriteLinksTooMany(t *testing.T) {
	dir, set := writeTree(t)
	old := maxLinkWalk
	maxLinkWalk = 1
	t.Cleanup(func() { maxLinkWalk = old })
	os.WriteFile(filepath.Join(dir, "work/one"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "work/two"), nil, 0o644)
	os.Link(filepath.Join(dir, "work/two"), filepath.Join(dir, "work/two2"))
	if err := writeAt(dir, "work/one", "x", set); err != nil {
		t.Errorf("a file with one name: %v", err)
	}
	if err := writeAt(dir, "work/two", "x", set); err == nil || !strings.Contains(err.Error(), "has other names (hard links)") {
		t.Errorf("a file with two names: %v", err)
	}
}

// pathsOf returns the paths of s's entries.
func pathsOf(s *Set) []string {
	var out []string
	for _, e := range s.entries {
		out = append(out, e.path)
	}
	return out
}

// TestOpenWriteWritable: an appendable file under a protected directory
// is appended to (as notes does), in its own directory only; written any
// other way (as write-file does, truncating), it is refused.
func TestOpenWriteWritable(t *testing.T) {
	dir, _ := writeTree(t)
	notes := filepath.Join(dir, "ro/notes.md")
	set := NewSet([]string{filepath.Join(dir, "ro")}, []string{notes})
	for range 2 {
		f, err := OpenWrite(filepath.Join(dir, "ro"), "notes.md", os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644, set)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("n\n")
		f.Close()
	}
	if b, _ := os.ReadFile(notes); string(b) != "n\nn\n" {
		t.Errorf("notes: %q", b)
	}
	var prot *ProtectedError
	if _, err := OpenWrite(dir, "ro/sub/notes.md", os.O_WRONLY|os.O_CREATE, 0o644, set); !errors.As(err, &prot) {
		t.Errorf("notes.md in another protected directory: %v", err)
	}
	if _, err := OpenWrite(dir, "ro/keep", os.O_WRONLY, 0, set); !errors.As(err, &prot) {
		t.Errorf("another file beside notes.md: %v", err)
	}
	for _, flag := range []int{os.O_WRONLY, os.O_WRONLY | os.O_TRUNC, os.O_WRONLY | os.O_APPEND | os.O_TRUNC} {
		if _, err := OpenWrite(filepath.Join(dir, "ro"), "notes.md", flag, 0, set); !errors.As(err, &prot) {
			t.Errorf("notes.md opened with flag %#x: %v", flag, err)
		}
	}
	if err := WriteFile(dir, "ro/notes.md", []byte("x"), 0o644, set); !errors.As(err, &prot) {
		t.Errorf("write-file over notes.md: %v", err)
	}
	if b, _ := os.ReadFile(notes); string(b) != "n\nn\n" {
		t.Errorf("notes after the refusals: %q", b)
	}
}

// TestOpenWriteBindAlias: a protected directory reached through a bind
// mount of it elsewhere is still refused: its identity is the same.
func TestOpenWriteBindAlias(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("bind mounts need root")
	}
	dir, set := writeTree(t)
	alias := filepath.Join(dir, "work/alias")
	os.Mkdir(alias, 0o755)
	if err := syscall.Mount(filepath.Join(dir, "ro"), alias, "", syscall.MS_BIND, ""); err != nil {
		t.Skipf("bind mount: %v", err)
	}
	defer syscall.Unmount(alias, syscall.MNT_DETACH)
	var prot *ProtectedError
	for _, name := range []string{"work/alias/keep", "work/alias/new", "work/alias/sub/new"} {
		if err := writeAt(dir, name, "x", set); !errors.As(err, &prot) {
			t.Errorf("%s: %v", name, err)
		}
	}
	unchanged(t, dir)
}

// TestOpenWriteRace: goroutines swap symbolic links to protected files
// and directories in and out while others write the same names; no
// write lands in the protected set.
func TestOpenWriteRace(t *testing.T) {
	dir, set := writeTree(t)
	work := filepath.Join(dir, "work")
	var stop atomic.Bool
	var wg sync.WaitGroup
	swap := func(name, real string, targets ...string) {
		defer wg.Done()
		p := filepath.Join(work, name)
		for i := 0; !stop.Load(); i++ {
			tmp := p + ".tmp"
			os.Remove(tmp)
			if i%2 == 0 {
				os.Symlink(targets[i/2%len(targets)], tmp)
			} else if real == "dir" {
				os.Mkdir(tmp, 0o755)
			} else {
				os.WriteFile(tmp, nil, 0o644)
			}
			if err := os.Rename(tmp, p); err != nil {
				os.RemoveAll(p)
			}
		}
	}
	wg.Add(2)
	go swap("f", "file", filepath.Join(dir, "ro/keep"), filepath.Join(dir, "plan"))
	go swap("d", "dir", filepath.Join(dir, "ro"), filepath.Join(dir, "ro/sub"))
	var wrote, refused atomic.Int64
	var writers sync.WaitGroup
	for w := range 4 {
		writers.Go(func() {
			for i := range 500 {
				name := "f"
				if (i+w)%2 == 1 {
					name = "d/keep"
				}
				if err := writeAt(work, name, "raced", set); err != nil {
					refused.Add(1)
				} else {
					wrote.Add(1)
				}
			}
		})
	}
	writers.Wait()
	stop.Store(true)
	wg.Wait()
	t.Logf("%d writes landed in the working directory, %d were refused", wrote.Load(), refused.Load())
	unchanged(t, dir)
}

// TestProbeWrite: ProbeWrite tells, before any write, the refusal
// OpenWrite would give a protected file and a hard link to one, and
// nothing for a file it may write, a file that does not exist, a link, or
// a path that leaves dir; nothing changes.
func TestProbeWrite(t *testing.T) {
	dir, set := writeTree(t)
	for _, l := range [][2]string{{"plan", "work/hard"}, {"ro/keep", "work/hardro"}, {"safe", "work/two"}} {
		if err := os.Link(filepath.Join(dir, l[0]), filepath.Join(dir, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../plan", filepath.Join(dir, "work/sym")); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"plan":        `is the protected path "` + dir + `/plan"`,
		"ro/keep":     `is the protected path "` + dir + `/ro" or lies under it`,
		"work/hard":   `"work/hard" (as opened, "` + dir + `/work/hard") is the protected path "` + dir + `/plan"`,
		"work/hardro": `"work/hardro" (as opened, "` + dir + `/work/hardro") is a hard link to a file under the protected path "` + dir + `/ro"`,
		"safe":        "",
		"work/two":    "", // two names, neither protected
		"work/new":    "",
		"work/sym":    "", // a link: OpenWrite refuses it for that
		"../outside":  "",
	} {
		pe := ProbeWrite(dir, name, set)
		switch {
		case want == "" && pe != nil:
			t.Errorf("%s: %v; want no refusal", name, pe)
		case want != "" && (pe == nil || !strings.Contains(pe.Error(), want)):
			t.Errorf("%s: %v; want %s", name, pe, want)
		}
		if want != "" {
			// OpenWrite refuses it the same way.
			if _, err := OpenWrite(dir, name, os.O_WRONLY, 0, set); err == nil || pe == nil || err.Error() != pe.Error() {
				t.Errorf("%s: OpenWrite says %v, ProbeWrite %v", name, err, pe)
			}
		}
	}
	if ProbeWrite(dir, "plan", nil) != nil {
		t.Error("a nil set protects nothing")
	}
	unchanged(t, dir)
}
