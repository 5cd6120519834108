package golden

import (
	"context"
	"encoding/json"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/check"
	"github.com/planc/planc/graph"
	"github.com/planc/planc/host/tools"
	"github.com/planc/planc/host/toolschema"
	"github.com/planc/planc/ir"
	"github.com/planc/planc/parser"
)

// examplesDir is the examples a newcomer runs and reads. .ci/run runs
// go test ./..., so TestExamples is how CI checks every example.
const examplesDir = "../examples"

// mcpListTimeout bounds how long an example's MCP servers have to start
// and list their tools: long enough for a `go run` server to compile.
const mcpListTimeout = 2 * time.Minute

// example is one JSON document under examples/.
type example struct {
	path string
	src  []byte
	// manifest is set for a capsule manifest (a document with "name").
	manifest *ast.Manifest
}

// readExamples reads every examples/**/*.json and sorts each into plans (a
// document with "steps") and manifests (one with "name"), as the schema
// tests do. A manifest with any diagnostic fails the test and is left out.
func readExamples(t *testing.T) (plans, manifests []*example) {
	t.Helper()
	err := filepath.WalkDir(examplesDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var top map[string]json.RawMessage
		if json.Unmarshal(src, &top) != nil {
			t.Errorf("%s is not a JSON object", path)
			return nil
		}
		ex := &example{path: filepath.ToSlash(path), src: src}
		switch {
		case top["steps"] != nil:
			plans = append(plans, ex)
		case top["name"] != nil:
			m, ds := parser.ParseManifest(src, parser.DefaultLimits())
			for _, d := range ds {
				t.Errorf("%s", d.OneLine(ex.path))
			}
			if m != nil && len(ds) == 0 {
				ex.manifest = m
				manifests = append(manifests, ex)
			}
		default:
			t.Errorf("%s is neither a plan (\"steps\") nor a capsule manifest (\"name\")", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return plans, manifests
}

// manifestFor returns the manifests a plan is checked against, and how
// each was chosen:
//
//   - every manifest whose entrypoint names the plan (a roost capsule's own
//     plan) — "referenced";
//   - otherwise the sibling manifest NAME.capsule.json for the plan
//     NAME.json, else the sibling capsule.json, else the one manifest in the
//     plan's directory — "sibling";
//   - otherwise none: the plan is checked against the runtime's embedded
//     default manifest, as planc run without --capsule runs it.
//
// A directory with several manifests and none named after the plan or
// capsule.json is ambiguous: the test fails and asks for a name.
func manifestFor(t *testing.T, plan *example, manifests []*example) []*example {
	t.Helper()
	var refs []*example
	for _, m := range manifests {
		ep := m.manifest.Entrypoint
		if ep == nil || ep.Plan == "" {
			continue
		}
		target := ep.Plan
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(m.path), target)
		}
		if filepath.Clean(target) == filepath.Clean(plan.path) {
			refs = append(refs, m)
		}
	}
	if len(refs) > 0 {
		return refs
	}
	dir := filepath.Dir(plan.path)
	var siblings []*example
	for _, m := range manifests {
		if filepath.Dir(m.path) == dir {
			siblings = append(siblings, m)
		}
	}
	for _, name := range []string{strings.TrimSuffix(filepath.Base(plan.path), ".json") + ".capsule.json", "capsule.json"} {
		for _, m := range siblings {
			if filepath.Base(m.path) == name {
				return []*example{m}
			}
		}
	}
	if len(siblings) > 1 {
		t.Errorf("%s: %d manifests beside it and none is capsule.json or named after it; name one so the test knows which the plan runs with", plan.path, len(siblings))
	}
	return siblings
}

// TestExamples: every plan under examples/ passes planc check with the
// capabilities of the manifest it runs with (see manifestFor) without a
// single diagnostic, warnings included; it lowers, and its schedule can
// be simulated (planc dump-ir, planc graph, planc run --dry-run). Every
// manifest parses without a diagnostic, and an entrypoint plan it names
// exists.
//
// The tool names of a manifest's MCP servers are only known once the
// servers run and list them: the test starts them from the repository's
// root, as planc check --capsule does (tools.ListMCPToolInputs), and
// checks the plan with their tools and input schemas. With -short it does
// not, and check.CapabilitiesOf
// leaves the unknown-tool rule off for such a manifest (the rest of the
// capability rules still run).
func TestExamples(t *testing.T) {
	plans, manifests := readExamples(t)
	if len(plans) < 3 {
		t.Fatalf("only %d example plans; examples/ should hold hello, refresh-fixtures and fan-out at least", len(plans))
	}
	for _, m := range manifests {
		if ep := m.manifest.Entrypoint; ep != nil && ep.Plan != "" {
			target := ep.Plan
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(m.path), target)
			}
			if _, err := os.Stat(target); err != nil {
				t.Errorf("%s: entrypoint plan: %v", m.path, err)
			}
		}
	}
	def := defaultManifest(t)
	for _, p := range plans {
		t.Run(strings.TrimPrefix(p.path, examplesDir+"/"), func(t *testing.T) {
			chosen := manifestFor(t, p, manifests)
			if len(chosen) == 0 {
				checkExample(t, p, "the embedded default manifest", def)
			}
			for _, m := range chosen {
				checkExample(t, p, m.path, m.manifest)
			}
		})
	}
}

// checkExample checks the plan p against manifest m (named name in
// messages) and fails on any diagnostic; then it lowers and simulates it.
func checkExample(t *testing.T, p *example, name string, m *ast.Manifest) {
	t.Helper()
	caps := check.CapabilitiesOf(m).WithSchemas(toolschema.Builtin())
	switch {
	case len(m.Tools.MCP) == 0:
	case testing.Short():
		t.Logf("%s: -short: %s's MCP servers are not started, so their tool names are not checked", p.path, name)
	default:
		root, err := filepath.Abs("..")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), mcpListTimeout)
		defer cancel()
		inputs, err := tools.ListMCPToolInputs(ctx, m, root, filepath.Dir(name), mcpListTimeout)
		if err != nil {
			t.Errorf("%s: MCP servers: %v", name, err)
			return
		}
		caps = caps.WithTools(slices.Sorted(maps.Keys(inputs))...).WithSchemas(inputs)
	}
	plan, ds := check.Load(p.src, caps)
	for _, d := range ds {
		t.Errorf("with %s: %s", name, d.OneLine(p.path))
	}
	if plan == nil || len(ds) > 0 {
		return
	}
	prog, err := ir.Lower(plan)
	if err != nil {
		t.Fatalf("lower: %v", err)
	}
	if _, err := graph.Simulate(prog, graph.Options{}); err != nil {
		t.Errorf("simulate: %v", err)
	}
}

// defaultManifest is the runtime's embedded default manifest, the one
// planc run uses without --capsule (host/capenv/default-capsule.json).
func defaultManifest(t *testing.T) *ast.Manifest {
	t.Helper()
	src, err := os.ReadFile("../host/capenv/default-capsule.json")
	if err != nil {
		t.Fatal(err)
	}
	m, ds := parser.ParseManifest(src, parser.DefaultLimits())
	if m == nil || len(ds) > 0 {
		t.Fatalf("host/capenv/default-capsule.json: %v", ds)
	}
	return m
}

// TestExamplesPresent: the examples the README and docs name are there,
// each of the plans with the manifest this test checks it against.
func TestExamplesPresent(t *testing.T) {
	plans, manifests := readExamples(t)
	want := map[string]string{
		"../examples/hello.json":            "../examples/capsule.json",
		"../examples/refresh-fixtures.json": "../examples/capsule.json",
		"../examples/fan-out.json":          "../examples/capsule.json",
	}
	for path, manifest := range want {
		i := slices.IndexFunc(plans, func(p *example) bool { return p.path == path })
		if i < 0 {
			t.Errorf("%s is missing", path)
			continue
		}
		got := manifestFor(t, plans[i], manifests)
		if len(got) != 1 || got[0].path != manifest {
			t.Errorf("%s is checked against %d manifests, want %s", path, len(got), manifest)
		}
	}
}
