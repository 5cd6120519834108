//go:build !unix

package protect

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Set is the protected set as the built-in tools see it: absolute paths
// (files or directories, recursively) that no tool call may write.
//
// Here (no openat, no O_NOFOLLOW) a write is checked by its name, each
// component looked at with Lstat before the file is opened: a step that
// swaps a component between the check and the open can win the race. On
// Linux the check is on what was opened (docs/security.md, "Platforms").
type Set struct {
	protected    []string
	appendable   []string
	runtimeUnder string // WithRuntimeDirs' working directory
}

// WithRuntimeDirs makes s refuse every path under workDir with a .planc
// component, as the step refusals do. It returns s.
func (s *Set) WithRuntimeDirs(workDir string) *Set {
	s.runtimeUnder = filepath.Clean(workDir)
	return s
}

// NewSet returns the Set of protected paths, with appendable files under
// them that a tool may still append to (the session's notes.md).
func NewSet(protected, appendable []string) *Set {
	s := &Set{}
	for _, p := range protected {
		if abs, err := filepath.Abs(p); err == nil {
			s.protected = append(s.protected, abs)
		}
	}
	for _, p := range appendable {
		if abs, err := filepath.Abs(p); err == nil {
			s.appendable = append(s.appendable, abs)
		}
	}
	return s
}

// samePath compares two cleaned absolute paths as this system's file
// names compare: without regard to case.
func samePath(a, b string) bool { return strings.EqualFold(a, b) }

// within reports whether p is root or lies under it.
func within(p, root string) bool {
	if samePath(p, root) {
		return true
	}
	r, err := filepath.Rel(root, p)
	return err == nil && filepath.IsLocal(r)
}

// check refuses full, an absolute path, when it is protected or lies under
// a protected path, or is another name of a protected file.
func (s *Set) check(name, full string, appending bool) error {
	if s == nil {
		return nil
	}
	if appending {
		for _, a := range s.appendable {
			if samePath(full, a) {
				return nil
			}
		}
	}
	if s.runtimeUnder != "" && within(full, s.runtimeUnder) && !samePath(full, s.runtimeUnder) {
		if r, err := filepath.Rel(s.runtimeUnder, full); err == nil {
			cur := s.runtimeUnder
			for _, c := range strings.Split(filepath.ToSlash(r), "/") {
				cur = filepath.Join(cur, c)
				if strings.EqualFold(c, RuntimeDirName) {
					return &ProtectedError{Name: name, Path: full, Protected: cur}
				}
			}
		}
	}
	st, statErr := os.Stat(full)
	for _, p := range s.protected {
		if within(full, p) {
			return &ProtectedError{Name: name, Path: full, Protected: p}
		}
		if statErr == nil {
			if pst, err := os.Stat(p); err == nil && os.SameFile(st, pst) {
				return &ProtectedError{Name: name, Path: full, Protected: p, HardLink: true}
			}
		}
	}
	return nil
}

// noLinks refuses a path beneath dir with a symbolic link among its
// components; components that do not exist yet end the walk.
func noLinks(dir, rel string) error {
	cur := dir
	for _, c := range strings.Split(filepath.ToSlash(rel), "/") {
		if c == "" || c == "." {
			continue
		}
		cur = filepath.Join(cur, c)
		st, err := os.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			target, _ := filepath.EvalSymlinks(cur)
			return &SymlinkError{Name: rel, Link: cur, Target: target}
		}
	}
	return nil
}

// local checks that name is a local path and returns it cleaned.
func local(name string) (string, error) {
	rel := filepath.Clean(name)
	if !filepath.IsLocal(rel) {
		return "", fmt.Errorf("%q is not a local path", name)
	}
	return rel, nil
}

// OpenWrite opens name, a local path beneath dir, for writing with flag
// and perm, refusing a path through a symbolic link and a protected path
// of set (a *ProtectedError). os.O_TRUNC applies only once the checks
// pass. A nil set protects nothing.
func OpenWrite(dir, name string, flag int, perm os.FileMode, set *Set) (*os.File, error) {
	rel, err := local(name)
	if err != nil {
		return nil, err
	}
	full, err := filepath.Abs(filepath.Join(dir, rel))
	if err != nil {
		return nil, err
	}
	if err := noLinks(dir, rel); err != nil {
		return nil, err
	}
	appending := flag&os.O_APPEND != 0 && flag&os.O_TRUNC == 0
	if err := set.check(name, full, appending); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(full, flag&^os.O_TRUNC, perm)
	if err != nil {
		return nil, err
	}
	if flag&os.O_TRUNC != 0 {
		if err := f.Truncate(0); err != nil {
			f.Close()
			return nil, err
		}
	}
	return f, nil
}

// MkdirAll makes name, a local path beneath dir, and the directories
// above it, refusing a path through a symbolic link or into the set.
func MkdirAll(dir, name string, perm os.FileMode, set *Set) error {
	rel, err := local(name)
	if err != nil || rel == "." {
		return err
	}
	if err := noLinks(dir, rel); err != nil {
		return err
	}
	full := filepath.Join(dir, rel)
	if err := set.check(name, full, false); err != nil {
		return err
	}
	return os.MkdirAll(full, perm)
}

// outsideBase splits full, an absolute path outside the working
// directory, into its volume's root and the rest, so that every component
// is walked (noLinks) and made (MkdirAll) as beneath the working directory.
func outsideBase(full string) (dir, rel string) {
	vol := filepath.VolumeName(full)
	root := vol + string(filepath.Separator)
	return root, strings.TrimPrefix(full[len(vol):], string(filepath.Separator))
}

// ProbeWrite tells OpenWrite's refusal before the write on Unix; here
// OpenWrite alone decides, and ProbeWrite returns nil.
func ProbeWrite(dir, name string, set *Set) *ProtectedError { return nil }
