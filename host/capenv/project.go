package capenv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/check"
	"github.com/planc/planc/diag"
	"github.com/planc/planc/host/session"
	"github.com/planc/planc/host/tools"
	"github.com/planc/planc/internal/trust"
	"github.com/planc/planc/parser"
)

// StdinName is how a PLAN or manifest argument names standard input, and
// the file name its diagnostics carry.
const StdinName = "-"

// Project is the capsule a command runs with: the manifest of --capsule,
// else the project's .planc/capsule.json found from the current directory
// upward (Find), else the embedded default (docs/cli.md).
type Project struct {
	// Env is the capsule's environment; nil when its manifest was refused
	// (Diags say why).
	Env *Env
	// Path is the manifest's path, as given or as found relative to the
	// current directory; "" for the embedded default.
	Path string
	// Found is set when Path was found rather than given.
	Found bool
	// Diags are the manifest's diagnostics: its warnings, or why it was
	// refused.
	Diags []diag.Diagnostic
	// Refresh lists the MCP servers' tools afresh (--refresh-tools)
	// instead of taking them from the project's cache.
	Refresh bool
}

// Which says which capsule flag (--capsule; "" when absent) stands for,
// without reading it: the Project's Path and Found, Env still nil.
func Which(flag string) (*Project, error) {
	if flag != "" {
		return &Project{Path: flag}, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("the current directory: %w", err)
	}
	return &Project{Path: Find(wd), Found: true}, nil
}

// Load returns the capsule for flag (--capsule; "" when absent), reading
// a manifest named "-" from stdin. err is non-nil only when a manifest
// file cannot be read, a found one is not trusted as it is (a plan could
// have written it), or the current directory cannot be known; a refused
// manifest gives a Project whose Env is nil.
func Load(flag string, stdin io.Reader) (*Project, error) {
	p, err := Which(flag)
	if err != nil {
		return nil, err
	}
	if p.Path == "" {
		p.Env = p.RunEnv(nil, false)
		return p, nil
	}
	var accept func([]byte) error
	if p.Found {
		accept = func(src []byte) error { return trust.CheckFound(p.Path, src) }
	}
	m, ds, err := ReadManifest(stdin, p.Path, accept)
	if errors.Is(err, fs.ErrNotExist) && flag != "" {
		return nil, fmt.Errorf("%w; name an existing manifest, or leave --capsule out to use the project's (planc version says which; planc init makes one)", err)
	}
	if err != nil {
		return nil, err
	}
	if p.Diags = ds; m != nil {
		p.Env = p.RunEnv(m, false)
	}
	return p, nil
}

// Dir is the directory the manifest's relative paths start from: the
// manifest's own; "" (the working directory) for the embedded default.
func (p *Project) Dir() string {
	if p.Path == "" {
		return ""
	}
	return filepath.Dir(p.Path)
}

// RunEnv is the environment of manifest m read from p.Path (New); with
// abs, its paths are absolute, for a run working in another directory than
// the one they were found from.
func (p *Project) RunEnv(m *ast.Manifest, abs bool) *Env {
	if p.Path == "" {
		return New(nil)
	}
	dir, path := p.Dir(), p.Path
	if abs {
		dir, path = session.AbsPath("", dir), session.AbsPath("", path)
	}
	if p.Path == StdinName {
		return New(m, Stdin(), Dir(dir))
	}
	return New(m, Path(path), Named(p.Path), Dir(dir))
}

// Describe says which capsule this is, for --verbose and planc version.
func (p *Project) Describe() string {
	switch {
	case p.Path == "":
		return fmt.Sprintf("the embedded default (there is no %s in the current directory or a parent; planc init makes one)", ProjectFile)
	case p.Found:
		return p.Path + " (found from the current directory)"
	}
	return p.Env.Name() + " (--capsule)"
}

// WorkDir is where a run works (S34): flag (--workdir) when given; else
// the project's root — the directory holding the .planc/ whose capsule was
// found — when the capsule was found from the current directory upward;
// else "", the current directory.
func (p *Project) WorkDir(flag string) string {
	switch {
	case flag != "":
		return flag
	case p.Found && p.Path != "":
		return filepath.Dir(filepath.Dir(p.Path))
	}
	return ""
}

// ListTools lists the capsule's inventory (Env.ListTools): the MCP
// servers' tools from the project's cache (the working directory's
// .planc/cache, which every run here protects from its steps as it
// protects the rest of .planc), or by starting them in the current
// directory, outside any cgroup scope, until ctx is done.
func (p *Project) ListTools(ctx context.Context) ([]tools.ToolInfo, error) {
	cache := ""
	if wd, err := os.Getwd(); err == nil {
		cache = filepath.Join(wd, session.RuntimeDir, "cache")
	}
	return p.Env.ListTools(ctx, tools.ListOptions{Timeout: tools.MCPStartTimeout, CacheDir: cache, Refresh: p.Refresh})
}

// NeedsMCP reports whether any of the plan texts srcs names a tool that is
// not a built-in tool the capsule grants: only then must the MCP servers'
// tools be known to check it. A plan that does not parse names none (its
// syntax errors are its diagnostics).
func (p *Project) NeedsMCP(srcs ...[]byte) bool {
	m := p.Env.Manifest()
	if len(m.Tools.MCP) == 0 {
		return false
	}
	granted := map[string]bool{}
	for _, b := range ast.Names(m.Tools.Builtin) {
		granted[b] = true
	}
	for _, src := range srcs {
		plan, _ := parser.ParsePlan(src, parser.DefaultLimits())
		if plan == nil {
			continue
		}
		for _, s := range plan.Steps {
			if s.Kind == ast.KindTool && !granted[s.Target] {
				return true
			}
		}
	}
	return false
}

// EnvFor is the capsule's environment with the tools of its MCP servers
// and their input schemas, which only the servers know, when a plan of
// srcs needs them (NeedsMCP) or Refresh asks for them: ListTools lists
// them. Otherwise, and without MCP servers, it is Env as it is. The error
// has one line per problem.
func (p *Project) EnvFor(ctx context.Context, srcs ...[]byte) (*Env, error) {
	if !p.Env.HasMCP() || !p.Refresh && !p.NeedsMCP(srcs...) {
		return p.Env, nil
	}
	infos, err := p.ListTools(ctx)
	if err != nil {
		return nil, err
	}
	return p.Env.WithMCP(tools.MCPInputs(infos)), nil
}

// readSource reads the document named by path (StdinName is stdin; a nil
// stdin is empty). It reads at most limit+1 bytes, so an oversized
// document is refused without being held in memory; the caller checks
// len(src) > limit.
func readSource(stdin io.Reader, path string, limit int) (*diag.File, error) {
	r := stdin
	if path != StdinName {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	} else if r == nil {
		r = strings.NewReader("")
	}
	if limit > 0 {
		r = io.LimitReader(r, int64(limit)+1)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		if path == StdinName {
			return nil, fmt.Errorf("read standard input: %w", err)
		}
		return nil, err // an *fs.PathError: it names the file
	}
	return &diag.File{Name: path, Src: b}, nil
}

// ReadPlan reads the plan at path, at most one byte over the size limit.
func ReadPlan(stdin io.Reader, path string) (*diag.File, error) {
	return readSource(stdin, path, parser.DefaultLimits().MaxBytes)
}

// ReadManifest reads and parses (ParseManifest) the capsule manifest at
// path, handing the bytes read to accept (when not nil) first, whose error
// it returns: the bytes judged are the bytes used. m is nil when the
// manifest has errors (the diagnostics say why); err is non-nil only when
// the file cannot be read or accept refuses it.
func ReadManifest(stdin io.Reader, path string, accept func(src []byte) error) (m *ast.Manifest, ds []diag.Diagnostic, err error) {
	f, err := readSource(stdin, path, parser.DefaultLimits().MaxBytes)
	if err != nil {
		return nil, nil, err
	}
	if accept != nil {
		if err := accept(f.Src); err != nil {
			return nil, nil, err
		}
	}
	m, ds = ParseManifest(f)
	return m, ds, nil
}

// planFiles replaces each directory of paths by the plan files directly
// in it, sorted: every regular *.json file but capsule.json, the name a
// capsule manifest goes by. Subdirectories are not entered. A directory
// that cannot be read, or holds no plan file, is a failure.
func planFiles(paths []string) (files []string, failures []error) {
	for _, p := range paths {
		fi, err := os.Stat(p)
		if p == StdinName || err != nil || !fi.IsDir() {
			files = append(files, p) // reading it says what is wrong with it
			continue
		}
		ents, err := os.ReadDir(p)
		var found []string
		for _, ent := range ents {
			name := ent.Name()
			if ent.Type().IsRegular() && strings.HasSuffix(name, ".json") && name != "capsule.json" {
				found = append(found, filepath.Join(p, name))
			}
		}
		switch {
		case err != nil:
			err = fmt.Errorf("%s: %v", p, err)
		case len(found) == 0:
			err = fmt.Errorf("%s holds no plan file (a *.json file other than capsule.json); name plan files, or a directory that holds some", p)
		}
		if err != nil {
			failures = append(failures, err)
			continue
		}
		slices.Sort(found)
		files = append(files, found...)
	}
	return files, failures
}

// IsPlanArg reports whether arg names a plan rather than a session:
// standard input, a file that is not a directory, or a .json name.
func IsPlanArg(arg string) bool {
	if arg == StdinName {
		return true
	}
	if fi, err := os.Stat(arg); err == nil {
		return !fi.IsDir()
	}
	return strings.HasSuffix(arg, ".json")
}

// CheckPaths checks the plans paths name (planFiles: a directory stands
// for its plan files; StdinName is stdin) against the capsule, with its
// MCP servers' tools when a plan needs them (EnvFor): planc check. It
// returns the manifest's diagnostics and every plan's, unsorted, and the
// inputs that could not be read, each a line; err is non-nil only when
// the MCP servers could not be listed (a line per problem).
func (p *Project) CheckPaths(ctx context.Context, stdin io.Reader, paths []string) (ds []diag.Diagnostic, failures []string, err error) {
	files, bad := planFiles(paths)
	for _, err := range bad {
		failures = append(failures, err.Error())
	}
	var plans []*diag.File
	var srcs [][]byte
	for _, path := range files {
		f, err := ReadPlan(stdin, path)
		if err != nil {
			failures = append(failures, err.Error())
			continue
		}
		plans, srcs = append(plans, f), append(srcs, f.Src)
	}
	env, err := p.EnvFor(ctx, srcs...)
	if err != nil {
		return nil, failures, err
	}
	ds = p.Diags
	for _, f := range plans {
		_, fds := env.LoadFile(f)
		ds = append(ds, fds...)
	}
	return ds, failures, nil
}

// MCPError is why the MCP servers' tools could not be listed, a line per
// problem.
type MCPError struct{ Err error }

func (e *MCPError) Error() string { return e.Err.Error() }
func (e *MCPError) Unwrap() error { return e.Err }

// CheckFile reads the plan at path (ReadPlan) and checks it against the
// capsule, with its MCP servers' tools when it needs them (EnvFor): the
// plan, nil when refused, and the manifest's diagnostics with the plan's,
// unsorted. err is the plan's file that could not be read, or an
// *MCPError.
func (p *Project) CheckFile(ctx context.Context, stdin io.Reader, path string) (*check.Plan, []diag.Diagnostic, error) {
	f, err := ReadPlan(stdin, path)
	if err != nil {
		return nil, nil, err
	}
	env, err := p.EnvFor(ctx, f.Src)
	if err != nil {
		return nil, nil, &MCPError{err}
	}
	plan, ds := env.LoadFile(f)
	return plan, append(p.Diags, ds...), nil
}
