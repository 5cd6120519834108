package toolschema_test

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/check"
	"github.com/planc/planc/host/toolschema"
)

// TestBuiltin: there is one schema per built-in tool, each compiles, wants
// an object with no other fields than it names (notes: other fields of
// strings or null, S31), and says in words what the tool does and what each
// field is (docs/manifest.md's table shows them).
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
			AdditionalProperties any    `json:"additionalProperties"`
			Properties           map[string]struct {
				Description string `json:"description"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		wantOthers := any(false)
		if name == "notes" {
			wantOthers = map[string]any{"type": []any{"string", "null"}, "description": "Any other member, such as `{\"log\": \"$build.output\"}`: appended as `NAME: VALUE`; `null` reads as empty."}
		}
		if s.Type != "object" || !reflect.DeepEqual(s.AdditionalProperties, wantOthers) || s.Description == "" || len(s.Properties) == 0 {
			t.Errorf("%s: want an object schema with additionalProperties %v, a description and properties: %s", name, wantOthers, raw)
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

// TestDescribe: Describe reads a tool's description and each input field
// (types, whether required, description) from its schema, sorted by name;
// a name that is no built-in tool has none.
func TestDescribe(t *testing.T) {
	got, ok := toolschema.Describe("write-file")
	if !ok {
		t.Fatal("write-file: not described")
	}
	if got.Description == "" || len(got.Fields) != 2 {
		t.Fatalf("write-file: %+v", got)
	}
	content, path := got.Fields[0], got.Fields[1]
	if content.Name != "content" || !content.Required || !slices.Equal(content.Types, []string{"string", "null"}) || content.Description == "" {
		t.Errorf("content: %+v", content)
	}
	if path.Name != "path" || !path.Required || !slices.Equal(path.Types, []string{"string"}) {
		t.Errorf("path: %+v", path)
	}
	for _, name := range ast.BuiltinTools() {
		if d, ok := toolschema.Describe(name); !ok || len(d.Fields) == 0 {
			t.Errorf("%s: %+v, %v", name, d, ok)
		}
	}
	notes, _ := toolschema.Describe("notes")
	if o := notes.Others; o == nil || !slices.Equal(o.Types, []string{"string", "null"}) || o.Description == "" || o.Required {
		t.Errorf("notes: other members %+v", o)
	}
	if got.Others != nil {
		t.Errorf("write-file: other members %+v", got.Others)
	}
	if _, ok := toolschema.Describe("submit-plan"); ok {
		t.Error("submit-plan described as a built-in tool")
	}
}
