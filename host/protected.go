package host

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/host/capsule"
	"github.com/planc/planc/host/protect"
	"github.com/planc/planc/host/sandbox"
	"github.com/planc/planc/host/session"
	"github.com/planc/planc/internal/trust"
)

// protectedSet is what one run protects from its steps and its tool calls
// (docs/security.md, "The protected set"): the kernel holds paths
// read-only for every shell step and capsule command (sandbox.Spec.Protect,
// and a sub-capsule is handed them), the built-in tools check what they
// open against them (protect.Set), and the step refusals refuse a step
// that names one (protect.Checker).
type protectedSet struct {
	// paths are the protected paths, absolute and clean, in the order
	// they were added, each once.
	paths []string
	// what says, for each path the runtime protects (all but the
	// manifest's read_only entries), what it is, for refusals.
	what map[string]string
	// bins are the files the allowlisted shell words resolved to at plan
	// start, by word (S14).
	bins map[string]binary
	// workDir is the steps' working directory, under which no path with a
	// .planc component is written.
	workDir string
}

// serverStarter is a scope that starts MCP servers under the protection
// a sub-capsule inherits (host/sandbox's *Scope on Linux): a sub-capsule's
// servers start after its parent's steps could change their files.
type serverStarter interface {
	StartServer(cmd *exec.Cmd, kind string) (*sandbox.Process, error)
}

// binary is the file an allowlisted shell word resolved to at plan start.
type binary struct {
	path string      // as sandbox.Resolve found it
	real string      // with its symbolic links followed: what runs
	fi   os.FileInfo // real's, for its identity
}

// protectedInput is what the protected set of a run is built from.
type protectedInput struct {
	m            *ast.Manifest
	manifestDir  string // the manifest's relative paths start here
	manifestPath string // the --capsule file, "" for none
	workDir      string // shell words with a slash, and PATH lookups, start here
	sessionDir   string
	roostDir     string
	// runFiles are what the capsules the plan's capsule steps may spawn
	// would run (capsule.Launcher.RunFiles).
	runFiles []capsule.RunFile
}

// newProtectedSet builds the protected set of a run, at plan start: the
// whole session directory, the working directory's .planc, every
// read_only path, the roost, the --capsule manifest, the files the
// allowlisted shell words resolve to now, and the paths the capsule
// that spawned this one protects (sandbox.Inherited).
func newProtectedSet(in protectedInput) *protectedSet {
	s := &protectedSet{what: map[string]string{}, bins: map[string]binary{}, workDir: session.AbsPath("", in.workDir)}
	c := session.Capsule{Manifest: in.m, ManifestDir: in.manifestDir, ManifestPath: in.manifestPath, SessionDir: in.sessionDir, WorkDir: in.workDir, Roost: in.roostDir}
	for _, p := range c.Protected() {
		s.add(p.Path, p.What)
	}
	for _, word := range ast.Names(in.m.Capabilities.ShellAllow) {
		b, ok := resolveBinary(word, in.workDir)
		if !ok {
			continue // nothing to protect: S14 resolves it at dispatch
		}
		s.bins[word] = b
		s.add(b.real, fmt.Sprintf("the file the allowed command %q runs", word))
	}
	for _, f := range in.runFiles {
		s.add(f.Path, fmt.Sprintf("%s of the sub-capsule %s, fixed when the plan started", f.What, f.Capsule))
	}
	if dir, err := trust.Dir(); err == nil && os.MkdirAll(dir, 0o700) == nil {
		// Made now so that the kernel can hold it: a record a step could
		// write would let a plan plant a trusted capsule for a later run.
		s.add(dir, "the record of the capsule manifests the user trusted (planc trust)")
	}
	for _, p := range sandbox.Inherited() {
		s.add(p, "a path the capsule that spawned this one protects")
	}
	return s
}

// readOnlyLinks refuses a read_only entry whose path passes through a
// symbolic link (docs/security.md, "Inodes, not paths"): the kernel's
// read-only bind holds the file the link leads to, not the link, so a
// step could re-point the link and every later reader of the path would
// read the step's file. The error names the entry, the link and the path
// to write instead. A path whose end does not exist yet is checked as
// far as it exists.
func readOnlyLinks(m *ast.Manifest, manifestDir string) error {
	for _, e := range m.Capabilities.ReadOnly {
		abs := session.AbsPath(manifestDir, e.Name)
		cur := string(filepath.Separator)
		if v := filepath.VolumeName(abs); v != "" {
			cur = v + cur
		}
		for _, c := range strings.Split(strings.TrimLeft(abs[len(filepath.VolumeName(abs)):], `/\`), string(filepath.Separator)) {
			if c == "" {
				continue
			}
			cur = filepath.Join(cur, c)
			fi, err := os.Lstat(cur)
			if err != nil {
				break
			}
			if fi.Mode()&os.ModeSymlink == 0 {
				continue
			}
			fix := "name the path without the link"
			if real, err := filepath.EvalSymlinks(abs); err == nil {
				fix = fmt.Sprintf("write %q, where it leads, instead", real)
			}
			return fmt.Errorf("%q passes through the symbolic link %s: planc holds files read-only, not the links to them, so a step could re-point the link; %s", e.Name, cur, fix)
		}
	}
	return nil
}

// readOnlyMissing returns a note for each read_only entry that names
// nothing when the plan starts: the kernel holds read-only what exists
// then, so such a path is protected only by its name (the step refusals,
// the tools' checks), and a step's program that creates it is not stopped
// (docs/security.md, "From when"). Often it is a typo.
func readOnlyMissing(m *ast.Manifest, manifestDir string) []string {
	var notes []string
	for _, e := range m.Capabilities.ReadOnly {
		abs := session.AbsPath(manifestDir, e.Name)
		if _, err := os.Lstat(abs); errors.Is(err, fs.ErrNotExist) {
			notes = append(notes, fmt.Sprintf("capabilities.filesystem.read_only: %q (%s) does not exist as the plan starts, so the kernel cannot hold it read-only; "+
				"only the step refusals and the tools' checks keep steps from making it: check the path, or make it before the run", e.Name, abs))
		}
	}
	return notes
}

// add protects p (made absolute); what is "" for a read_only entry.
func (s *protectedSet) add(p, what string) {
	if p == "" {
		return
	}
	p = session.AbsPath("", p)
	if slices.Contains(s.paths, p) {
		return
	}
	s.paths = append(s.paths, p)
	if what != "" {
		s.what[p] = what
	}
}

// runtime returns what p is when the runtime protects it, false for a
// read_only entry of the manifest and any other path. A nil set protects
// nothing.
func (s *protectedSet) runtime(p string) (what string, ok bool) {
	if s == nil {
		return "", false
	}
	what, ok = s.what[p]
	return what, ok
}

// runtimePaths are the protected paths that are not read_only entries of
// the manifest, in order.
func (s *protectedSet) runtimePaths() []string {
	var out []string
	for _, p := range s.paths {
		if _, ok := s.what[p]; ok {
			out = append(out, p)
		}
	}
	return out
}

// toolSet is the protect.Set the built-in tools check what they open
// against: every protected path, notes (the session's notes.md) open for
// appending.
func (s *protectedSet) toolSet(notes string) *protect.Set {
	return protect.NewSet(s.paths, []string{notes}).WithRuntimeDirs(s.workDir)
}

// resolveBinary resolves word as a shell step's first word resolves (S14)
// and follows the symbolic links of the result: what a step naming word
// would run now. ok is false when word resolves to nothing runnable.
func resolveBinary(word, dir string) (binary, bool) {
	path, err := sandbox.Resolve(word, dir)
	if err != nil {
		return binary{}, false
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return binary{}, false
	}
	fi, err := os.Stat(real)
	if err != nil {
		return binary{}, false
	}
	return binary{path: path, real: real, fi: fi}, true
}

// command returns the file a shell step whose first word is word runs:
// for a word that resolved at plan start, the file it resolved to then,
// and only while word still resolves to that very file (a file put on PATH
// before it since, or in its place, refuses the step); "" for any other
// word, which S14 resolves at dispatch, and for a nil set.
func (s *protectedSet) command(word, dir string) (string, error) {
	if s == nil {
		return "", nil
	}
	was, ok := s.bins[word]
	if !ok {
		return "", nil
	}
	// The common case costs what S14's lookup did, and two stats: the
	// word must still lead to the file it led to, and the path run must
	// still be that file (a step that moved the file's directory aside,
	// planted its own file at the old path and re-pointed a link to the
	// moved original would pass the first check alone).
	if path, err := sandbox.Resolve(word, dir); err == nil {
		if fi, err := os.Stat(path); err == nil && os.SameFile(fi, was.fi) {
			if rfi, err := os.Lstat(was.real); err == nil && os.SameFile(rfi, was.fi) {
				return was.real, nil
			}
			return "", fmt.Errorf("refused: %s, the file %q ran when the plan started, is not that file any more (its directory was moved or the file replaced): "+
				"planc runs only what an allowed command resolved to at plan start; restore it, or start the plan again", was.real, word)
		}
	}
	now, ok := resolveBinary(word, dir)
	if !ok {
		return "", fmt.Errorf("refused: %q resolves to no file now; when the plan started it ran %s: "+
			"planc runs only what an allowed command resolved to at plan start; restore it, or start the plan again", word, was.real)
	}
	return "", fmt.Errorf("refused: %q now resolves to %s, not to %s, the file it ran when the plan started; "+
		"planc runs only what an allowed command resolved to at plan start; remove %s, or start the plan again",
		word, now.real, was.real, now.path)
}
