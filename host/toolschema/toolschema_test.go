package toolschema_test

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/check"
	"github.com/planc/planc/host/toolschema"
)

// TestBuiltin: there is one schema per built-in tool, each compiles, wants
// an object with no other fields than it names, and says in words what the
// tool does and what each field is (docs/manifest.md's table shows them).
func TestBuiltin(t *testing.T) {
	schemas := toolschema.Builtin()
	if d := cmp.Diff(ast.BuiltinTools(), slices.Sorted(maps.Keys(schemas))); d != "" {
		t.Fatalf("schemas (-built-in tools +schemas):\n%s", d)
	}
	for name, raw := range schemas {
		if _, err := check.CompileInputSchema(raw); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		var s struct {
			Type                 string `json:"type"`
			Description          string `json:"description"`
			AdditionalProperties *bool  `json:"additionalProperties"`
			Properties           map[string]struct {
				Description string `json:"description"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if s.Type != "object" || s.AdditionalProperties == nil || *s.AdditionalProperties || s.Description == "" || len(s.Properties) == 0 {
			t.Errorf("%s: want an object schema with additionalProperties false, a description and properties: %s", name, raw)
		}
		for p, ps := range s.Properties {
			if ps.Description == "" {
				t.Errorf("%s: property %q has no description", name, p)
			}
		}
	}
	schemas["notes"] = nil
	if toolschema.Builtin()["notes"] == nil {
		t.Error("Builtin returned a shared map")
	}
}
