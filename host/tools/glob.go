package tools

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/planc/planc/host/session"
)

// The repo-files tool: the files under the working directory that a glob
// matches, as git would list them. The glob is doublestar's (`*`, `?`,
// `[…]`, `{a,b}` alternatives, `**` for any number of directories), and a
// file that a .gitignore excludes is not listed: every .gitignore from the
// working directory down, each applying to its own directory, deeper ones
// and later lines winning, `!` re-including, as git reads them, plus the
// working directory's .git/info/exclude.

// checkGlob checks a repo-files pattern and returns it without a trailing
// slash: relative, slash-separated, no empty, "." or ".." segments, and
// well-formed.
func checkGlob(pattern string) (string, error) {
	if pattern == "" {
		return "", errors.New(`the glob is empty; write a pattern such as "**/*.go"`)
	}
	if strings.HasPrefix(pattern, "/") || filepath.IsAbs(pattern) {
		return "", fmt.Errorf("the glob %q is absolute; write it relative to the working directory", pattern)
	}
	trimmed := strings.TrimSuffix(pattern, "/")
	for _, s := range strings.Split(trimmed, "/") {
		switch s {
		case "", ".", "..":
			return "", fmt.Errorf("the glob %q has an empty, \".\" or \"..\" segment; write it relative to the working directory, without them", pattern)
		}
	}
	if !doublestar.ValidatePattern(trimmed) {
		return "", fmt.Errorf("the glob %q is malformed: a [ or { without its closing ] or }, or a \\ at the end", pattern)
	}
	return trimmed, nil
}

// repoFiles lists the files under dir matching pattern, as slash-separated
// paths relative to dir, sorted. Ignored files are not listed, nor any file
// under an ignored directory (git does not look into one, so a `!` cannot
// re-include what is under it). Directories named .git are not entered,
// nor dir's .planc (the runtime's own sessions: listing them would list
// the plan's own files). Symbolic links are listed, not followed.
func repoFiles(dir, pattern string) ([]string, error) {
	pattern, err := checkGlob(pattern)
	if err != nil {
		return nil, err
	}
	r := &repoFS{fsys: os.DirFS(dir), read: map[string]bool{}, hidden: map[string]bool{}}
	out, err := doublestar.Glob(r, pattern, doublestar.WithFilesOnly(), doublestar.WithNoFollow(), doublestar.WithFailOnIOErrors())
	if err != nil {
		return nil, err
	}
	slices.Sort(out)
	return slices.Compact(out), nil // {a,a} alternatives match a file twice
}

// repoFS is the working directory as repo-files sees it: an fs.FS whose
// directories do not list, and whose Stat does not find, what git would
// not list. It reads each directory's .gitignore the first time the glob
// looks into it or below it.
type repoFS struct {
	fsys   fs.FS
	ps     []gitignore.Pattern // in ascending priority
	read   map[string]bool     // directories whose .gitignore has been read
	hidden map[string]bool     // whether a directory is excluded, once asked
}

// Open implements fs.FS.
func (r *repoFS) Open(name string) (fs.File, error) {
	if _, err := r.Stat(name); err != nil {
		return nil, err
	}
	return r.fsys.Open(name)
}

// Stat implements fs.StatFS: an excluded name does not exist.
func (r *repoFS) Stat(name string) (fs.FileInfo, error) {
	fi, err := fs.Stat(r.fsys, name)
	if err != nil {
		return nil, err
	}
	if err := r.visible(name, "stat", fi.IsDir()); err != nil {
		return nil, err
	}
	return fi, nil
}

// ReadDir implements fs.ReadDirFS: the directory's entries that are not
// excluded.
func (r *repoFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if err := r.visible(name, "readdir", true); err != nil {
		return nil, err
	}
	es, err := fs.ReadDir(r.fsys, name)
	if err != nil {
		return nil, err
	}
	if err := r.load(name); err != nil {
		return nil, err
	}
	return slices.DeleteFunc(es, func(e fs.DirEntry) bool {
		return r.excluded(split(path.Join(name, e.Name())), e.IsDir())
	}), nil
}

// visible returns a not-exist error for op when name, or a directory it is
// under, is excluded.
func (r *repoFS) visible(name, op string, isDir bool) error {
	if !fs.ValidPath(name) {
		return &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	segs := split(name)
	for k := 1; k <= len(segs); k++ {
		if r.excluded(segs[:k], k < len(segs) || isDir) {
			return &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
		}
	}
	return nil
}

// excluded reports whether the path segs (a directory when isDir) is not
// listed: a .git, the top .planc, or ignored by the .gitignore files of
// the directories above it. Its ancestors are not looked at.
func (r *repoFS) excluded(segs []string, isDir bool) bool {
	if len(segs) == 0 {
		return false
	}
	key := ""
	if isDir {
		key = strings.Join(segs, "/")
		if h, ok := r.hidden[key]; ok {
			return h
		}
	}
	last := segs[len(segs)-1]
	h := last == ".git" || isDir && len(segs) == 1 && last == session.RuntimeDir
	if !h {
		// An unreadable .gitignore fails the walk in ReadDir; here it only
		// leaves the patterns read so far.
		r.load(strings.Join(segs[:len(segs)-1], "/"))
		h = gitignore.NewMatcher(r.ps).Match(segs, isDir)
	}
	if isDir {
		r.hidden[key] = h
	}
	return h
}

// load reads the .gitignore of directory dir ("" or "." for the top, which
// also reads .git/info/exclude) and of every directory above it, parents
// first, so that a deeper file's patterns come later and win.
func (r *repoFS) load(dir string) error {
	if dir == "." {
		dir = ""
	}
	if r.read[dir] {
		return nil
	}
	r.read[dir] = true
	domain := split(dir)
	if dir == "" {
		if err := r.readPatterns(".git/info/exclude", nil); err != nil {
			return err
		}
	} else if err := r.load(path.Dir(dir)); err != nil {
		return err
	}
	return r.readPatterns(path.Join(dir, ".gitignore"), domain)
}

// readPatterns appends the patterns of the ignore file at name, if there
// is one, for the directory domain.
func (r *repoFS) readPatterns(name string, domain []string) error {
	if fi, err := fs.Stat(r.fsys, name); err != nil || !fi.Mode().IsRegular() {
		return nil // none, or not a file git would read
	}
	data, err := fs.ReadFile(r.fsys, name)
	if err != nil {
		return err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		r.ps = append(r.ps, gitignore.ParsePattern(line, domain))
	}
	return sc.Err()
}

// split splits a slash-separated relative path into its segments; "" and
// "." have none.
func split(name string) []string {
	if name == "" || name == "." {
		return nil
	}
	return strings.Split(name, "/")
}
