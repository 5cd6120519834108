package check

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/host/toolschema"
	"github.com/planc/planc/parser"
)

// checkRuleByRule is Check as it was before the rules shared one pass over
// the steps: each rule runs over every step before the next rule starts.
// Check must find exactly the same diagnostics; if it did not, some rule
// would be reading what later rules find, or what rules find for other
// steps, during the pass.
func checkRuleByRule(plan *ast.Plan, caps *Capabilities) []Diagnostic {
	if plan == nil {
		return nil
	}
	p := newPass(plan, caps)
	for _, s := range plan.Steps {
		p.resolve(s)
	}
	var graphRules []Rule
	for _, r := range rules() {
		if r.NeedsCaps && caps == nil {
			continue
		}
		if r.graph {
			graphRules = append(graphRules, r)
		}
		if r.plan != nil && !r.graph {
			r.plan(p, &r)
		}
		if r.step != nil {
			for i, s := range plan.Steps {
				r.step(p, &r, i, s)
			}
		}
	}
	for _, r := range graphRules {
		r.plan(p, &r)
	}
	ast.SortDiagnostics(p.diags)
	return p.diags
}

// goldenCaps are the golden tests' capabilities (golden/testdata/check)
// with the built-in tools' schemas, and the tools of the MCP golden
// cases' server (golden/testdata/mcp) with theirs, so that the one-pass
// tests hold tool-input to both.
func goldenCaps(t testing.TB) *Capabilities {
	src, err := os.ReadFile(filepath.Join("..", "golden", "testdata", "check", "capsule.json"))
	if err != nil {
		t.Fatal(err)
	}
	m, diags := parser.ParseManifest(src, parser.DefaultLimits())
	if m == nil || ast.HasErrors(diags) {
		t.Fatalf("golden capsule: %v", diags)
	}
	raw, err := os.ReadFile(filepath.Join("..", "golden", "testdata", "mcp", "server", "tools.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tools []struct {
		Name        string          `json:"name"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	if err := json.Unmarshal(raw, &tools); err != nil {
		t.Fatal(err)
	}
	mcp := map[string]json.RawMessage{}
	for _, tl := range tools {
		mcp[tl.Name] = tl.InputSchema
	}
	return CapabilitiesOf(m).WithSchemas(toolschema.Builtin()).WithTools(slices.Sorted(maps.Keys(mcp))...).WithSchemas(mcp)
}

// goldenPlans returns the golden tests' plans by path: those of
// golden/testdata/check and golden/testdata/mcp.
func goldenPlans(t testing.TB) map[string][]byte {
	paths, _ := filepath.Glob(filepath.Join("..", "golden", "testdata", "check", "*", "*.json"))
	mcp, _ := filepath.Glob(filepath.Join("..", "golden", "testdata", "mcp", "*", "*.json"))
	paths = append(paths, mcp...)
	if len(paths) < 20 {
		t.Fatalf("only %d golden plans", len(paths))
	}
	out := map[string][]byte{}
	for _, path := range paths {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		out[path] = b
	}
	return out
}

// TestOnePassMatchesRuleByRule: on every golden plan, with and without
// capabilities, the single pass finds what rule-by-rule checking finds.
func TestOnePassMatchesRuleByRule(t *testing.T) {
	caps := goldenCaps(t)
	for path, src := range goldenPlans(t) {
		plan, _ := parser.ParsePlan(src, parser.DefaultLimits())
		for _, c := range []*Capabilities{caps, nil} {
			if diff := cmp.Diff(checkRuleByRule(plan, c), Check(plan, c)); diff != "" {
				t.Errorf("%s (caps %v): rule by rule (-) and one pass (+) differ:\n%s", path, c != nil, diff)
			}
		}
	}
}

// FuzzCheckOrder: the same on any plan (checkRuleByRule runs every rule on
// every step, so this also holds Rule.on's skips to lose nothing), and a
// masked rule finds nothing on the steps it skips (TestRuleOn's checks).
func FuzzCheckOrder(f *testing.F) {
	for _, src := range goldenPlans(f) {
		f.Add(src)
	}
	caps := goldenCaps(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		plan, _ := parser.ParsePlan(src, parser.DefaultLimits())
		for _, c := range []*Capabilities{caps, nil} {
			if diff := cmp.Diff(checkRuleByRule(plan, c), Check(plan, c)); diff != "" {
				t.Fatalf("rule by rule (-) and one pass (+) differ on %q:\n%s", src, diff)
			}
			ruleOnSkips(t, "fuzz", plan, c)
		}
	})
}
