//go:build unix

package protect

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// Set is the protected set as the built-in tools see it: absolute paths
// (files or directories, recursively) that no tool call may write. It is
// checked against what a tool has opened, never against a name alone, so
// a step that swaps a symbolic link or renames a directory while the tool
// resolves its path cannot make it write there (see OpenWrite). A Set is
// read only after NewSet: it may be shared by goroutines.
type Set struct {
	entries []setEntry
	byID    map[fileID]*setEntry
	hasDirs bool // a directory entry exists: ancestors must be walked
	// runtimeUnder is the working directory under which no path with a
	// .planc component is written (WithRuntimeDirs); "" for none.
	runtimeUnder string
	appendable   []appendFile

	// linked holds the files with more than one name under the protected
	// directories, found on the first write of a file with more than one
	// name; linkedAll is false when there were too many to look at all.
	linkOnce  sync.Once
	linked    map[fileID]*setEntry
	linkedAll bool
}

// maxLinkWalk bounds the entries of the protected directories looked at
// for hard links (a variable for tests).
var maxLinkWalk = 1 << 20

// fileID is a file's identity: its device and inode numbers.
type fileID struct{ dev, ino uint64 }

// setEntry is one protected path.
type setEntry struct {
	path string // absolute and clean, as given
	real string // with the symbolic links of its existing part followed
	dir  bool   // it was a directory when the Set was made
}

// appendFile is a file planc's own tools append to although it lies
// under a protected directory: its directory's identity and its name.
type appendFile struct {
	parent fileID
	name   string
}

// NewSet makes the Set of protected: absolute paths (relative ones are
// made absolute against the process's working directory). A path that
// exists is known by its identity (device and inode) as well as by its
// path, so it stays protected when a directory above it is renamed; one
// that does not exist yet is protected by its path. appendable names files
// under a protected directory that a built-in tool may still append to
// (the session's notes.md, which the notes tool appends to): such a file
// is opened only for appending (os.O_APPEND without os.O_TRUNC, so
// write-file, which truncates, is refused), and only in the very directory
// it was in when the Set was made.
func NewSet(protected, appendable []string) *Set {
	s := &Set{byID: map[fileID]*setEntry{}}
	s.entries = make([]setEntry, 0, len(protected))
	for _, p := range protected {
		abs, err := filepath.Abs(p)
		if err != nil {
			abs = filepath.Clean(p)
		}
		s.entries = append(s.entries, setEntry{path: abs, real: resolve(abs)})
	}
	for i := range s.entries {
		e := &s.entries[i]
		var st unix.Stat_t
		if unix.Stat(e.path, &st) != nil {
			continue
		}
		e.dir = st.Mode&unix.S_IFMT == unix.S_IFDIR
		s.hasDirs = s.hasDirs || e.dir
		s.byID[idOf(&st)] = e
	}
	for _, w := range appendable {
		abs, err := filepath.Abs(w)
		if err != nil {
			continue
		}
		var st unix.Stat_t
		if unix.Stat(filepath.Dir(abs), &st) == nil {
			s.appendable = append(s.appendable, appendFile{parent: idOf(&st), name: filepath.Base(abs)})
		}
	}
	return s
}

// WithRuntimeDirs makes s refuse, besides its paths, every path under
// workDir (absolute) with a .planc component, as the step refusals do: a
// capsule manifest written there would be what a later planc run finds.
// The check is on the opened directory's real path. It returns s.
func (s *Set) WithRuntimeDirs(workDir string) *Set {
	s.runtimeUnder = filepath.Clean(workDir)
	return s
}

// runtimeDir returns the .planc directory real path p lies in under the
// working directory WithRuntimeDirs named, or "".
func (s *Set) runtimeDir(p string) string {
	wd := s.runtimeUnder
	if wd == "" || p == wd || !under(p, wd) {
		return ""
	}
	cur := wd
	for _, c := range strings.Split(strings.TrimPrefix(p[len(wd):], "/"), "/") {
		cur = filepath.Join(cur, c)
		if c == RuntimeDirName {
			return cur
		}
	}
	return ""
}

func idOf(st *unix.Stat_t) fileID { return fileID{dev: uint64(st.Dev), ino: uint64(st.Ino)} }

// dirEntry returns the protected directory fd is, or nil.
func (s *Set) dirEntry(fd int) *setEntry {
	if s == nil || !s.hasDirs {
		return nil
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return nil
	}
	if e := s.byID[idOf(&st)]; e != nil && e.dir {
		return e
	}
	return nil
}

// checkDir checks directory fd, about to get or hold the entry leaf (name
// is the path the tool was given): with ancestors, fd and every directory
// above it by identity; and fd's real path joined with leaf by path. When
// appending, an appendable file of the Set passes.
func (s *Set) checkDir(fd int, leaf, name string, ancestors, appending bool) error {
	if s == nil || len(s.entries) == 0 && s.runtimeUnder == "" {
		return nil
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	id := idOf(&st)
	for _, w := range s.appendable {
		if appending && w.parent == id && w.name == leaf {
			return nil
		}
	}
	real, hasReal := fdPath(fd)
	if hasReal {
		p := filepath.Join(real, leaf)
		for i := range s.entries {
			e := &s.entries[i]
			if under(p, e.path) || under(p, e.real) {
				return &ProtectedError{Name: name, Path: p, Protected: e.path}
			}
		}
		if d := s.runtimeDir(p); d != "" {
			return &ProtectedError{Name: name, Path: p, Protected: d}
		}
	}
	if !s.hasDirs {
		return nil
	}
	if !ancestors {
		if e := s.byID[id]; e != nil && e.dir {
			return &ProtectedError{Name: name, Path: real, Protected: e.path}
		}
		return nil
	}
	cur, err := unix.Openat(fd, ".", dirFlags|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return &fs.PathError{Op: "open", Path: name, Err: err}
	}
	defer func() { unix.Close(cur) }()
	for range 4096 {
		if e := s.byID[id]; e != nil && e.dir {
			return &ProtectedError{Name: name, Path: real, Protected: e.path}
		}
		up, err := unix.Openat(cur, "..", dirFlags|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("cannot check the directories above %q: %w", name, err)
		}
		unix.Close(cur)
		cur = up
		if err := unix.Fstat(cur, &st); err != nil {
			return &fs.PathError{Op: "stat", Path: name, Err: err}
		}
		if idOf(&st) == id {
			return nil // the root: its ".." is itself
		}
		id = idOf(&st)
	}
	return fmt.Errorf("cannot check the directories above %q: too deep", name)
}

// findLinks records the regular files with more than one name under the
// protected directories, at most maxLinkWalk entries in all. Steps cannot
// link a protected file anew (the kernel protection refuses it), so the
// links that exist when it runs are all there will be.
func (s *Set) findLinks() {
	s.linked = map[fileID]*setEntry{}
	s.linkedAll = true
	n := 0
	for i := range s.entries {
		e := &s.entries[i]
		if !e.dir {
			continue
		}
		filepath.WalkDir(e.path, func(p string, d fs.DirEntry, err error) error {
			if n++; n > maxLinkWalk {
				s.linkedAll = false
				return fs.SkipAll
			}
			if err != nil || !d.Type().IsRegular() {
				return nil
			}
			var st unix.Stat_t
			if unix.Lstat(p, &st) == nil && st.Nlink > 1 {
				s.linked[idOf(&st)] = e
			}
			return nil
		})
	}
}

// notRegular is the refusal of a file that is not a regular file.
func notRegular(name string) error {
	return fmt.Errorf("%q is not a regular file; built-in tools write regular files only", name)
}

// checkFile checks the opened file fd: a regular file, not a protected
// file, and writable by its mode.
func (s *Set) checkFile(fd int, name string) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	return s.checkStat(&st, name, func() string { real, _ := fdPath(fd); return real })
}

// checkStat is checkFile for the file st describes; real returns its real
// path, for a refusal.
func (s *Set) checkStat(st *unix.Stat_t, name string, real func() string) error {
	if s != nil {
		e, link := s.byID[idOf(st)], false
		if e == nil && st.Nlink > 1 && st.Mode&unix.S_IFMT == unix.S_IFREG && s.hasDirs {
			// Another name of the file may lie in a protected directory.
			s.linkOnce.Do(s.findLinks)
			e = s.linked[idOf(st)]
			link = e != nil
			if e == nil && !s.linkedAll {
				return fmt.Errorf("%q has other names (hard links), and the protected directories are too big to look for them all; "+
					"write a file with one name, or remove it first", name)
			}
		}
		if e != nil {
			return &ProtectedError{Name: name, Path: real(), Protected: e.path, HardLink: link}
		}
	}
	switch {
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		return notRegular(name)
	case st.Mode&0o222 == 0:
		return fmt.Errorf("%q is read-only (mode %#o); built-in tools do not write a file without a write permission bit, even as root", name, st.Mode&0o7777)
	}
	return nil
}
