package tools

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/check"
	"github.com/planc/planc/host/protect/envpolicy"
	"github.com/planc/planc/host/sandbox"
	"github.com/planc/planc/host/toolschema"
)

// ToolInfo is one tool of a capsule's inventory as `planc tools` and
// serve's list-tools show it: where it comes from, what it does, and the
// input schema check's tool-input rule holds a step's input to.
type ToolInfo struct {
	Name string `json:"name"`
	// Source is "builtin" or "mcp".
	Source string `json:"source"`
	// Server is the MCP server's name in the manifest; "" for a built-in.
	Server      string `json:"server,omitempty"`
	Description string `json:"description"`
	// ReadOnly is an MCP tool's annotations.readOnlyHint.
	ReadOnly bool `json:"read_only,omitempty"`
	// InputSchema is the input schema, JSON text; null when the server
	// gave none.
	InputSchema json.RawMessage `json:"input_schema"`
}

// ListOptions is how ListTools reaches a manifest's MCP servers.
type ListOptions struct {
	// Dir is the servers' working directory ("" is the current one);
	// ManifestDir is where a command's first word with a slash starts.
	Dir, ManifestDir string
	// Timeout bounds each server's start and tool list.
	Timeout time.Duration
	// CacheDir keeps each server's tool list (".planc/cache" of the
	// project); "" keeps none. A server whose list is there, under the
	// same key, is not started.
	CacheDir string
	// Refresh starts every server even when its list is kept, and keeps
	// the fresh list.
	Refresh bool
}

// BuiltinInfos returns the built-in tools among names, sorted, each once,
// described from their schemas (host/toolschema).
func BuiltinInfos(names []string) []ToolInfo {
	names = slices.Compact(slices.Sorted(slices.Values(names)))
	schemas := toolschema.Builtin()
	var out []ToolInfo
	for _, n := range names {
		d, ok := toolschema.Describe(n)
		if !ok {
			continue
		}
		out = append(out, ToolInfo{Name: n, Source: "builtin", Description: d.Description, InputSchema: schemas[n]})
	}
	return out
}

// ListTools returns the inventory of m: the built-in tools it grants,
// then each MCP server's tools in manifest order (each server's as it
// lists them), taken from the cache where it has them and otherwise from
// the servers, which it starts outside any cgroup scope, each in a
// process group of its own, and ends. It fails as ListMCPToolInputs
// does: a server that does not start and list its tools in time, or a
// name offered twice.
func ListTools(ctx context.Context, m *ast.Manifest, o ListOptions) ([]ToolInfo, error) {
	out := BuiltinInfos(ast.Names(m.Tools.Builtin))
	lists := make([][]ToolInfo, len(m.Tools.MCP))
	errs := make([]error, len(m.Tools.MCP))
	var wg sync.WaitGroup
	for i, srv := range m.Tools.MCP {
		key, keyErr := cacheKey(srv, o)
		if keyErr == nil && !o.Refresh && o.CacheDir != "" {
			if l, ok := readCache(o.CacheDir, srv.Name, key); ok {
				lists[i] = l
				continue
			}
		}
		wg.Go(func() {
			lists[i], errs[i] = listServer(ctx, srv, o)
			if errs[i] == nil && keyErr == nil && o.CacheDir != "" {
				writeCache(o.CacheDir, srv.Name, key, lists[i])
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if err := clashes(ast.Names(m.Tools.Builtin), m.Tools.MCP, lists); err != nil {
		return nil, err
	}
	for _, l := range lists {
		out = append(out, l...)
	}
	return out, nil
}

// MCPInputs returns the MCP tools of infos by name, each with its input
// schema, as check.Capabilities.WithMCP takes them.
func MCPInputs(infos []ToolInfo) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for _, t := range infos {
		if t.Source == "mcp" {
			out[t.Name] = t.InputSchema
		}
	}
	return out
}

// listServer starts srv, lists its tools and ends it.
func listServer(ctx context.Context, srv ast.MCPServer, o ListOptions) ([]ToolInfo, error) {
	s, err := startMCPServer(ctx, srv, Launch{Dir: o.Dir, ManifestDir: o.ManifestDir, Start: sandbox.StartProcess, Timeout: o.Timeout})
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []ToolInfo
	for _, t := range s.tools {
		if seen[t.Name] {
			continue
		}
		seen[t.Name] = true
		schema := schemaText(t.InputSchema)
		if schema == nil {
			schema = json.RawMessage("null")
		}
		out = append(out, ToolInfo{Name: t.Name, Source: "mcp", Server: srv.Name, Description: t.Description,
			ReadOnly: t.Annotations != nil && t.Annotations.ReadOnlyHint, InputSchema: schema})
	}
	return out, s.close()
}

// clashes refuses a tool name offered by two sources, in the words of
// Servers.index.
func clashes(builtins []string, servers []ast.MCPServer, lists [][]ToolInfo) error {
	source := map[string]string{check.SubmitPlan: "the runtime's submit-plan tool"}
	for _, b := range builtins {
		source[b] = "the built-in tools (tools.builtin)"
	}
	var msgs []string
	for i, l := range lists {
		this := fmt.Sprintf("MCP server %q", servers[i].Name)
		for _, t := range l {
			if other, ok := source[t.Name]; ok {
				msgs = append(msgs, fmt.Sprintf("tool %q is offered by two sources, %s and %s; a tool name must come from one source, so drop one of them from the manifest", t.Name, other, this))
				continue
			}
			source[t.Name] = this
		}
	}
	slices.Sort(msgs)
	if len(msgs) > 0 {
		return errors.New(strings.Join(msgs, "\n"))
	}
	return nil
}

// cacheVersion changes when what the cache keeps changes.
const cacheVersion = "planc-tools-1"

// cacheKey is what a server's tool list depends on, hashed: its command
// and arguments, the file its first word resolves to (path, device,
// inode, size and modification time), its working directory, its
// environment's names and the manifest's values for it.
func cacheKey(srv ast.MCPServer, o ListOptions) (string, error) {
	path, err := sandbox.Resolve(srv.Command[0], o.ManifestDir)
	if err != nil {
		return "", err
	}
	id, err := fileIdentity(path)
	if err != nil {
		return "", err
	}
	dir, _ := filepath.Abs(cmpOr(o.Dir, "."))
	var names []string
	for _, kv := range envpolicy.Environ(os.Environ(), ast.EnvMap(srv.Env)) {
		name, _, _ := strings.Cut(kv, "=")
		names = append(names, name)
	}
	slices.Sort(names)
	set := ast.EnvMap(srv.Env)
	var setKV []string
	for _, k := range slices.Sorted(maps.Keys(set)) {
		setKV = append(setKV, k+"="+set[k])
	}
	b, _ := json.Marshal([]any{cacheVersion, srv.Command, path, id, dir, names, setKV})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// cacheFile is where server's tool list under key is kept.
func cacheFile(dir, server, key string) string {
	safe := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, server)
	return filepath.Join(dir, "mcp-"+safe+"-"+key[:32]+".json")
}

// cached is one kept tool list.
type cached struct {
	Key   string     `json:"key"`
	Tools []ToolInfo `json:"tools"`
}

func readCache(dir, server, key string) ([]ToolInfo, bool) {
	b, err := os.ReadFile(cacheFile(dir, server, key))
	if err != nil {
		return nil, false
	}
	var c cached
	if json.Unmarshal(b, &c) != nil || c.Key != key {
		return nil, false
	}
	for i := range c.Tools {
		c.Tools[i].Server = server
	}
	return c.Tools, true
}

// writeCache keeps list; a cache that cannot be written is no error (the
// next listing starts the server again).
func writeCache(dir, server, key string, list []ToolInfo) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return
	}
	b, err := json.Marshal(cached{Key: key, Tools: list})
	if err != nil {
		return
	}
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), cacheFile(dir, server, key))
	}
	if err != nil {
		os.Remove(f.Name())
	}
}
