package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/planc/planc/host/session"
)

// glob is a repo-files pattern split at "/": each segment is a path.Match
// pattern, and a segment that is exactly "**" matches any number of path
// segments, none included.
type glob []string

// parseGlob checks a repo-files pattern: relative, slash-separated, no "."
// or ".." segments, every segment a valid path.Match pattern.
func parseGlob(pattern string) (glob, error) {
	if pattern == "" {
		return nil, errors.New(`the glob is empty; write a pattern such as "**/*.go"`)
	}
	if strings.HasPrefix(pattern, "/") || filepath.IsAbs(pattern) {
		return nil, fmt.Errorf("the glob %q is absolute; write it relative to the working directory", pattern)
	}
	segs := strings.Split(strings.TrimSuffix(pattern, "/"), "/")
	for _, s := range segs {
		switch s {
		case "", ".", "..":
			return nil, fmt.Errorf("the glob %q has an empty, \".\" or \"..\" segment; write it relative to the working directory, without them", pattern)
		}
		if _, err := path.Match(s, ""); err != nil {
			return nil, fmt.Errorf("the glob %q has a malformed segment %q", pattern, s)
		}
	}
	return segs, nil
}

// literalPrefix returns the leading segments without pattern characters:
// the directory the walk starts from.
func (g glob) literalPrefix() []string {
	for i, s := range g {
		if s == "**" || strings.ContainsAny(s, `*?[\`) {
			return g[:i]
		}
	}
	return g
}

// match reports whether the path segments p match g entirely.
func (g glob) match(p []string) bool {
	for len(g) > 0 {
		if g[0] == "**" {
			rest := g[1:]
			for k := 0; k <= len(p); k++ {
				if rest.match(p[k:]) {
					return true
				}
			}
			return false
		}
		if len(p) == 0 {
			return false
		}
		if ok, _ := path.Match(g[0], p[0]); !ok {
			return false
		}
		g, p = g[1:], p[1:]
	}
	return len(p) == 0
}

// mayContain reports whether a directory at segments d may hold a match:
// whether some extension of d could match g. It prunes the walk.
func (g glob) mayContain(d []string) bool {
	for len(d) > 0 {
		if len(g) == 0 {
			return false
		}
		if g[0] == "**" {
			return true
		}
		if ok, _ := path.Match(g[0], d[0]); !ok {
			return false
		}
		g, d = g[1:], d[1:]
	}
	return len(g) > 0
}

// repoFiles lists the files under dir matching pattern, as slash-separated
// paths relative to dir, sorted. Directories named .git are not entered,
// nor dir's .planc (the runtime's own sessions: listing them would list
// the plan's own files). Symbolic links are listed, not followed.
func repoFiles(dir, pattern string) ([]string, error) {
	g, err := parseGlob(pattern)
	if err != nil {
		return nil, err
	}
	prefix := g.literalPrefix()
	start := filepath.Join(append([]string{dir}, prefix...)...)
	var out []string
	err = filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == start && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll // nothing there: no match
			}
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		segs := strings.Split(filepath.ToSlash(rel), "/")
		if rel == "." {
			segs = nil
		}
		if d.IsDir() {
			if d.Name() == ".git" || rel == session.RuntimeDir || !g.mayContain(segs) {
				if p == start {
					return fs.SkipAll
				}
				return fs.SkipDir
			}
			return nil
		}
		if g.match(segs) {
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(out)
	return out, nil
}
