package capsule

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/parser"
)

// DefaultRoostDir is the roost `planc run` spawns sub-capsules from when
// it is given no --roost, relative to the working directory.
const DefaultRoostDir = "roost"

// ManifestFile is a capsule's manifest in the roost:
// ROOST/<namespace>/<name>/capsule.json.
const ManifestFile = "capsule.json"

// Roost is the directory of the capsules a plan's capsule steps may spawn
// (docs/capsules.md). It decides at spawn
// time, not at validation (S15): a bare name must match exactly one entry
// of the spawning capsule's capabilities.spawn.allow, and that capsule's
// manifest must be in the roost, named as its place says, with an
// entrypoint. A refusal fails the step, never the plan's validation.
type Roost struct {
	// Dir is the roost directory.
	Dir string
	// root is the roost as opened at plan start (Open); nil opens Dir at
	// each Resolve. real is its path then, links resolved.
	root *os.File
	real string
}

// Open returns the roost at dir as it is now: later spawns read its
// manifests through the descriptor opened here, beneath it and without
// following links, so a step that re-points a link to the roost or
// renames a directory above it does not change what is spawned. Close
// releases it.
func Open(dir string) (Roost, error) {
	f, err := openDir(dir)
	if err != nil {
		return Roost{Dir: dir}, err
	}
	if fi, err := f.Stat(); err != nil || !fi.IsDir() {
		f.Close()
		return Roost{Dir: dir}, fmt.Errorf("%s is not a directory", dir)
	}
	real, err := dirPath(f)
	if err != nil {
		real = dir
	}
	return Roost{Dir: dir, root: f, real: real}, nil
}

// RealDir is the directory the roost was when Open opened it, its links
// resolved: what a sub-capsule is told its roost is, and where a
// manifest's relative paths start, so that neither follows a link a step
// has since re-pointed. Dir when the roost was not opened.
func (r Roost) RealDir() string {
	if r.real == "" {
		return r.Dir
	}
	return r.real
}

// Close releases what Open opened.
func (r Roost) Close() error {
	if r.root == nil {
		return nil
	}
	return r.root.Close()
}

// Found is a capsule the roost found for a spawn.
type Found struct {
	// Name is its namespaced name, e.g. "local/worker"; Version its
	// manifest's version (ast.DefaultManifestVersion when it gives none).
	Name, Version string
	// Path is its capsule.json, absolute; Dir the directory holding it,
	// which the manifest's relative paths start from.
	Path, Dir string
	// Manifest is the parsed manifest, with an entrypoint; Src its
	// bytes, as read beneath the roost: what the sub-capsule is handed,
	// never a path to read again.
	Manifest *ast.Manifest
	Src      []byte
}

// MatchSpawn returns the entries of allow (capabilities.spawn.allow) that
// the bare name matches: those whose last "/"-segment equals it (S15).
// Duplicate entries count once.
func MatchSpawn(bare string, allow []string) []string {
	var out []string
	for _, a := range allow {
		if a[strings.LastIndexByte(a, '/')+1:] == bare && !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}

// Referee is the roost's own check of a spawn, whatever the roost holds:
// the namespace/name capsule that bare, named by a step of the capsule
// called from, stands for in allow (its capabilities.spawn.allow), or why
// the roost refuses: the name is not a bare name (it has a "/", or is
// empty), or it matches no entry or two. Every roost referees with it.
func Referee(bare, from string, allow []string) (string, error) {
	if i := strings.LastIndexByte(bare, '/'); i >= 0 || bare == "" {
		// check's capsule-not-allowed warns of the same, in the same words.
		if name := bare[i+1:]; name != "" {
			return "", fmt.Errorf("the roost refuses to spawn capsule %q: a capsule step names the capsule by its bare name; write %q, the bare name, not %q", bare, name, bare)
		}
		entry := "local/worker"
		if len(allow) > 0 {
			entry = allow[0]
		}
		return "", fmt.Errorf("the roost refuses to spawn capsule %q: it names no capsule; a capsule step names the capsule by its bare name, as %q for %q", bare, entry[strings.LastIndexByte(entry, '/')+1:], entry)
	}
	matches := MatchSpawn(bare, allow)
	// Each refusal a grant would lift ends with its fix, as check's
	// capsule-not-allowed warning does (docs/manifest.md).
	grant := fmt.Sprintf("add its namespaced name (e.g. %q) to capabilities.spawn.allow in the manifest of %q", "local/"+bare, from)
	switch {
	case len(matches) > 1:
		return "", fmt.Errorf("the roost refuses to spawn capsule %q: it matches %s in capabilities.spawn.allow of %q, which is ambiguous; keep one of them in capabilities.spawn.allow, or rename one of those capsules", bare, ast.QuoteList(matches, "and"), from)
	case len(matches) == 0 && len(allow) == 0:
		return "", fmt.Errorf("the roost refuses to spawn capsule %q: capsule %q may spawn nothing (its capabilities.spawn.allow is empty); %s", bare, from, grant)
	case len(matches) == 0:
		return "", fmt.Errorf("the roost refuses to spawn capsule %q: it is not in capabilities.spawn.allow of %q, which allows %s; %s", bare, from, ast.QuoteList(allow, "and"), grant)
	}
	name := matches[0]
	if !ast.IsCapsuleName(name) {
		// The manifest parser refuses such an entry; a hand-built
		// manifest could still hold one, and it must not name a path.
		return "", fmt.Errorf("the roost refuses to spawn %q: not a namespace/name capsule name", name)
	}
	return name, nil
}

// Resolve finds the capsule a step names by its bare name, spawned by the
// capsule called from, whose capabilities.spawn.allow is allow. Its
// error says why the roost refuses: the name is not a bare name (it has a
// "/", or is empty), it matches no entry or two, the capsule is not in the
// roost, its manifest is refused or has no entrypoint.
func (r Roost) Resolve(bare, from string, allow []string) (*Found, error) {
	name, err := Referee(bare, from, allow)
	if err != nil {
		return nil, err
	}
	// Its place as the roost was opened: the manifest's relative paths
	// (a command ./run.sh, an entrypoint plan) start there, not wherever
	// a link to the roost leads now.
	dir, err := filepath.Abs(r.RealDir())
	if err != nil {
		return nil, err
	}
	ns, base, _ := strings.Cut(name, "/")
	capDir := filepath.Join(dir, ns, base)
	path := filepath.Join(capDir, ManifestFile)
	src, err := r.read(filepath.Join(ns, base, ManifestFile), path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("capsule %q is not in the roost %s: there is no %s", name, r.Dir, filepath.Join(r.Dir, ns, base, ManifestFile))
	}
	if err != nil {
		return nil, fmt.Errorf("the roost refuses to spawn %q: %w", name, err)
	}
	m, err := LoadManifest(path, src)
	if err != nil {
		return nil, err
	}
	if m.Name != name {
		return nil, fmt.Errorf("%s names capsule %q, not %q: a capsule's manifest lives at ROOST/<namespace>/<name>/%s", path, m.Name, name, ManifestFile)
	}
	if m.Entrypoint == nil {
		return nil, fmt.Errorf("the roost refuses to spawn %q: %s has no entrypoint; add \"entrypoint\": {\"command\": [...]} or {\"plan\": \"<file>\"}", name, path)
	}
	return &Found{Name: name, Version: m.Version, Path: path, Dir: capDir, Manifest: m, Src: src}, nil
}

// maxManifest bounds a roost manifest's size.
const maxManifest = 4 << 20

// read returns the regular file rel beneath the roost (path names it in
// errors): through the descriptor Open kept, without following a
// symbolic link anywhere on the way.
func (r Roost) read(rel, path string) ([]byte, error) {
	root := r.root
	if root == nil {
		f, err := openDir(r.Dir)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		root = f
	}
	f, err := openBeneath(root, rel, path)
	if errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EXDEV) {
		return nil, fmt.Errorf("%s passes through a symbolic link or leads out of the roost; the roost runs only the manifests it holds itself, so replace the link with the file", path)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	src, err := io.ReadAll(io.LimitReader(f, maxManifest+1))
	if err != nil {
		return nil, err
	}
	if len(src) > maxManifest {
		return nil, fmt.Errorf("%s is over %d bytes, too big for a capsule manifest", path, maxManifest)
	}
	return src, nil
}

// LoadManifest parses a roost capsule's manifest, src read from path; its
// error names the first problem with its line and column.
func LoadManifest(path string, src []byte) (*ast.Manifest, error) {
	m, ds := parser.ParseManifest(src, parser.DefaultLimits())
	for _, d := range ds {
		if d.Severity == ast.Error {
			return nil, fmt.Errorf("%s:%d:%d: %s [%s]", path, d.Span.Start.Line, d.Span.Start.Col, d.Message, d.Code)
		}
	}
	if m == nil {
		return nil, fmt.Errorf("%s: not a capsule manifest", path)
	}
	if m.Version == "" {
		m.Version = ast.DefaultManifestVersion
	}
	return m, nil
}
