package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/planc/planc/host/session"
	"github.com/planc/planc/internal/regfile"
)

// The repo-files tool: the files under the working directory that a glob
// matches, as git would list them. The glob is doublestar's (`*`, `?`,
// `[…]`, `{a,b}` alternatives, `**` for any number of directories), and a
// file that a .gitignore excludes is not listed: every .gitignore from the
// working directory down, each applying to its own directory, deeper ones
// and later lines winning, `!` re-including, as git reads them, plus the
// working directory's .git/info/exclude. As git does (since 2.32), it
// reads no ignore file through a symbolic link.

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
	if n, _ := expansions(trimmed, 0, false); n > MaxGlobPatterns {
		return "", fmt.Errorf("the glob %q stands for more than %d patterns through its {…} alternatives (each group multiplies them), the most repo-files matches; use fewer alternatives, or a broader glob", pattern, MaxGlobPatterns)
	}
	return trimmed, nil
}

// MaxGlobPatterns bounds the patterns a repo-files glob stands for
// through its {…} alternatives: the listing's work grows with their
// number, which each group multiplies ({a,b}{a,b}… doubles it a group).
const MaxGlobPatterns = 1024

// expansions counts the patterns p[i:] stands for through its {…}
// alternatives, up to MaxGlobPatterns+1, and returns where it stopped: at
// the end of p, or, inGroup, at the "," or "}" that ends an alternative.
// p is a valid doublestar pattern: a \ escapes the next byte, and a
// {, "," or } inside [...] is a literal.
func expansions(p string, i int, inGroup bool) (int, int) {
	prod := 1
	for i < len(p) {
		switch p[i] {
		case '\\':
			i += 2
		case '[':
			j := strings.IndexByte(p[i+1:], ']')
			if j < 0 {
				return prod, len(p)
			}
			i += j + 2
		case '{':
			sum := 0
			for i++; ; {
				n, j := expansions(p, i, true)
				sum, i = min(sum+n, MaxGlobPatterns+1), j
				if i >= len(p) {
					break
				}
				i++
				if p[i-1] == '}' {
					break
				}
			}
			prod = min(prod*sum, MaxGlobPatterns+1)
		case ',', '}':
			if inGroup {
				return prod, i
			}
			i++
		default:
			i++
		}
	}
	return prod, i
}

// repoFiles lists the files under dir matching pattern, as slash-separated
// paths relative to dir, sorted. Ignored files are not listed, nor any file
// under an ignored directory (git does not look into one, so a `!` cannot
// re-include what is under it). Directories named .git are not entered,
// nor dir's .planc (the runtime's own sessions: listing them would list
// the plan's own files). Symbolic links are listed, not followed: neither
// by `**` nor when the pattern names one as a directory (`link/*`), so
// that no link lists what lies outside dir. It stops with ctx's error
// once ctx is done.
func repoFiles(ctx context.Context, dir, pattern string) ([]string, error) {
	pattern, err := checkGlob(pattern)
	if err != nil {
		return nil, err
	}
	r := &repoFS{ctx: ctx, dir: dir, fsys: os.DirFS(dir), read: map[string]bool{}, hidden: map[string]bool{}, realDir: map[string]bool{}}
	out, err := doublestar.Glob(r, pattern, doublestar.WithFilesOnly(), doublestar.WithNoFollow(), doublestar.WithFailOnIOErrors())
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, fmt.Errorf("the listing was cancelled: %w", cerr)
		}
		if errors.Is(err, fs.ErrInvalid) {
			// checkGlob reads the segments before the alternatives:
			// one of these made a path that is not relative and local.
			return nil, fmt.Errorf("the glob %q has a {…} alternative that is empty, \".\", \"..\" or absolute where a path segment goes; write it relative to the working directory, without them", pattern)
		}
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
	ctx     context.Context
	dir     string // what fsys is
	fsys    fs.FS
	ps      []gitignore.Pattern // in ascending priority
	read    map[string]bool     // directories whose .gitignore has been read
	hidden  map[string]bool     // whether a directory is excluded, once asked
	realDir map[string]bool     // whether a path is a directory, not a link to one
}

// Open implements fs.FS: nothing is opened through a symbolic link.
func (r *repoFS) Open(name string) (fs.File, error) {
	fi, err := r.Stat(name)
	if err != nil {
		return nil, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return r.fsys.Open(name)
}

// Stat implements fs.StatFS: an excluded name does not exist, nor does a
// name under a symbolic link; a symbolic link is itself (lstat), so that
// the glob takes it for a file and does not follow it.
func (r *repoFS) Stat(name string) (fs.FileInfo, error) {
	if err := r.ctx.Err(); err != nil {
		return nil, err
	}
	if err := r.throughLink(name, "stat", false); err != nil {
		return nil, err
	}
	fi, err := fs.Lstat(r.fsys, name)
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
	if err := r.ctx.Err(); err != nil {
		return nil, err
	}
	if err := r.throughLink(name, "readdir", true); err != nil {
		return nil, err
	}
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
	out := es[:0]
	for _, e := range es {
		if err := r.ctx.Err(); err != nil {
			return nil, err // many ignore patterns make each entry slow
		}
		if !r.excluded(split(path.Join(name, e.Name())), e.IsDir()) {
			out = append(out, e)
		}
	}
	return out, nil
}

// throughLink returns a not-exist error for op when a directory name lies
// under is a symbolic link, or, with whole, when name itself is one: the
// glob names the link as a directory (`link/*`), and following it would
// list what lies outside the working directory.
func (r *repoFS) throughLink(name, op string, whole bool) error {
	if !fs.ValidPath(name) {
		return &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	segs := split(name)
	n := len(segs) - 1
	if whole {
		n = len(segs)
	}
	for k := 1; k <= n; k++ {
		p := strings.Join(segs[:k], "/")
		ok, known := r.realDir[p]
		if !known {
			fi, err := fs.Lstat(r.fsys, p)
			ok = err == nil && fi.IsDir()
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			r.realDir[p] = ok
		}
		if !ok {
			return &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
		}
	}
	return nil
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
// is one, for the directory domain. As git does, it reads only a regular
// file, and not through a symbolic link (git 2.32 and later do not follow
// one to an ignore file); it reads at most MaxRead bytes of it.
func (r *repoFS) readPatterns(name string, domain []string) error {
	if r.throughLink(name, "open", false) != nil {
		return nil // none, or under a link
	}
	f, err := regfile.OpenNoFollow(filepath.Join(r.dir, filepath.FromSlash(name)))
	if err != nil {
		return nil // none, a link (ELOOP), not a file git would read, or not there any more
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxRead+1))
	if err != nil {
		return err
	}
	if len(data) > MaxRead {
		return fmt.Errorf("the ignore file %q is over %d bytes (16 MiB), the most repo-files reads of one; make it smaller", name, MaxRead)
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		r.ps = append(r.ps, gitignore.ParsePattern(line, domain))
	}
	return nil
}

// split splits a slash-separated relative path into its segments; "" and
// "." have none.
func split(name string) []string {
	if name == "" || name == "." {
		return nil
	}
	return strings.Split(name, "/")
}
