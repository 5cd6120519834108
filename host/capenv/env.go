// Package capenv is a capsule's environment: everything a plan is checked
// and run against, as cel-go's Env or expr's conf.Config hold what a
// program is compiled against. It holds the capsule manifest (or the
// embedded default), the built-in tools' input schemas, and — once the
// manifest's MCP servers have listed them — the MCP tools with theirs.
//
// New is the one constructor: planc's commands, planc serve, a redrive
// and a sub-capsule's entrypoint all build their Env with it, so they
// check a plan with the same capabilities. WithMCP is the one way the MCP
// servers' tools join. Beside it stand finding the project's capsule
// (Find) and reading a manifest or a plan (ParseManifest, Env.LoadFile).
//
// In the flow it sits between the front end (check) and the host: host,
// host/capsule, serve and cmd/planc take an Env.
package capenv

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/check"
	"github.com/planc/planc/host/tools"
	"github.com/planc/planc/host/toolschema"
	"github.com/planc/planc/parser"
)

// defaultManifestJSON is the manifest planc uses without --capsule: the
// five built-in tools, no shell binaries, nothing to spawn, and the
// plan.submit grant (docs/manifest.md).
//
//go:embed default-capsule.json
var defaultManifestJSON []byte

// DefaultManifestName is the embedded default manifest's capsule name.
const DefaultManifestName = "local/planc"

// DefaultManifest returns the embedded default manifest, freshly parsed:
// the caller may keep or change it.
func DefaultManifest() *ast.Manifest {
	m, ds := parser.ParseManifest(defaultManifestJSON, parser.DefaultLimits())
	if m == nil || ast.HasErrors(ds) {
		panic(fmt.Sprintf("capenv: the embedded default manifest is refused: %v", ds))
	}
	return m
}

// Env is one capsule's environment. It is immutable: WithMCP returns a new
// one, so an Env may be shared by every plan and goroutine.
type Env struct {
	m        *ast.Manifest
	embedded bool
	path     string // the file it was read from, protected from the steps
	name     string // how refusals name it
	dir      string // where the manifest's relative paths start
	workDir  string // where shell binaries are looked up
	// mcp holds the MCP servers' tools and their input schemas once
	// listed (WithMCP); nil before.
	mcp  map[string]json.RawMessage
	caps *check.Capabilities
}

// Option sets one property of an Env in New.
type Option func(*Env)

// Path says the manifest was read from the file path: capability
// refusals name it, and no step or tool call may change it.
func Path(path string) Option {
	return func(e *Env) { e.path, e.name = path, path }
}

// Named makes refusals name the manifest name instead of its path (a
// path as the user gave it, where Path is made absolute).
func Named(name string) Option { return func(e *Env) { e.name = name } }

// Stdin says the manifest was read from standard input: refusals name it
// so, and there is no file to protect.
func Stdin() Option {
	return func(e *Env) { e.path, e.name = "", "the manifest on standard input" }
}

// Dir is the directory the manifest's relative paths (its MCP servers'
// commands, its entrypoint) start from; "" (the default) is the working
// directory of the run.
func Dir(dir string) Option { return func(e *Env) { e.dir = dir } }

// WorkDir is where a run would look a shell binary up, for the
// binary-not-found warning; "" (the default) is the current directory.
func WorkDir(dir string) Option { return func(e *Env) { e.workDir = dir } }

// New returns the environment of manifest m, nil for the embedded
// default (DefaultManifest), as opts describe it. m must have parsed
// without errors. Its MCP servers' tools are pending until WithMCP.
func New(m *ast.Manifest, opts ...Option) *Env {
	e := &Env{m: m}
	if m == nil {
		e.m, e.embedded = DefaultManifest(), true
	}
	for _, o := range opts {
		o(e)
	}
	caps := check.CapabilitiesOf(e.m).WithSchemas(toolschema.Builtin())
	caps.Manifest, caps.Embedded = e.name, e.embedded
	caps.Found = tools.BinaryFinder(e.workDir)
	e.caps = caps
	return e
}

// Default is New(nil): the embedded default capsule's environment.
func Default() *Env { return New(nil) }

// Manifest is the capsule manifest. It must not be changed.
func (e *Env) Manifest() *ast.Manifest { return e.m }

// Embedded reports whether the manifest is the embedded default.
func (e *Env) Embedded() bool { return e.embedded }

// Path is the file the manifest was read from, which no step may change;
// "" for the embedded default and standard input.
func (e *Env) Path() string { return e.path }

// Name is how refusals name the manifest: its path, "the manifest on
// standard input", or "" for the embedded default.
func (e *Env) Name() string { return e.name }

// Dir is where the manifest's relative paths start; "" is the working
// directory of the run.
func (e *Env) Dir() string { return e.dir }

// HasMCP reports whether the manifest has MCP servers, whose tools are
// pending until WithMCP.
func (e *Env) HasMCP() bool { return len(e.m.Tools.MCP) > 0 }

// Capabilities is what check holds a plan to in this environment: the
// manifest's capabilities, the built-in tools' input schemas, the
// manifest's name for the fixes, the binary lookup, and the MCP tools
// once WithMCP added them. It must not be changed.
func (e *Env) Capabilities() *check.Capabilities { return e.caps }

// WithMCP returns e with the tools the manifest's MCP servers listed
// (tool name to input schema JSON text, nil for none) joined to its
// inventory, which ends their pending state. It is the one place MCP
// tools join a capsule's capabilities; e itself is left alone.
func (e *Env) WithMCP(mcp map[string]json.RawMessage) *Env {
	out := *e
	out.mcp = maps.Clone(mcp)
	if out.mcp == nil {
		out.mcp = map[string]json.RawMessage{}
	}
	out.caps = e.caps.WithMCP(out.mcp)
	return &out
}

// MCPTools are the MCP tools WithMCP joined, sorted; nil before.
func (e *Env) MCPTools() []string {
	if e.mcp == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(e.mcp))
}

// Load is check.Load with e's capabilities: the plan text src parsed and
// checked, nil when refused, with every diagnostic.
func (e *Env) Load(src []byte) (*check.Plan, []check.Diagnostic) {
	return check.Load(src, e.caps)
}

// Recheck checks p, loaded before the MCP servers' tools were known,
// again with the tools WithMCP joined to e (check.Plan.WithTools). It
// returns the plan so checked, nil when refused, and this check's
// diagnostics.
func (e *Env) Recheck(p *check.Plan) (*check.Plan, []check.Diagnostic) {
	return p.WithTools(e.mcp)
}

// CheckInput holds input, the input a built-in tool is called with, to
// that tool's input schema, as check's tool-input rule holds a step's
// input to it (tools.Builtins.Inputs).
func (e *Env) CheckInput(tool string, input json.RawMessage) error {
	schemas, err := builtinSchemas()
	if err != nil {
		return err
	}
	s, ok := schemas[tool]
	if !ok {
		return fmt.Errorf("built-in tool %q has no input schema in host/toolschema", tool)
	}
	return s.Validate(input)
}

// builtinSchemas are the built-in tools' input schemas, compiled once.
var builtinSchemas = sync.OnceValues(func() (map[string]*check.InputSchema, error) {
	out := map[string]*check.InputSchema{}
	for name, raw := range toolschema.Builtin() {
		s, err := check.CompileInputSchema(raw)
		if err != nil {
			return nil, fmt.Errorf("the input schema of built-in tool %q: %w", name, err)
		}
		out[name] = s
	}
	return out, nil
})
