package toolschema

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// Field is one member of a built-in tool's input, as its schema describes
// it.
type Field struct {
	// Name is the member's key.
	Name string
	// Types are the JSON types the schema allows for it, in the schema's
	// order, e.g. ["string", "null"].
	Types []string
	// Required is set when the schema lists it in required.
	Required bool
	// Description is the schema's description of it.
	Description string
}

// Tool is what a built-in tool's schema says of the tool and its input.
type Tool struct {
	// Description is the schema's description of the tool.
	Description string
	// Fields are the input's members, sorted by name.
	Fields []Field
}

// Describe returns what the schema of the built-in tool name says of it,
// for people (docs/manifest.md's table) and agents (planc serve's tool
// descriptions); false when name is no built-in tool.
func Describe(name string) (Tool, bool) {
	src, ok := loaded()[name]
	if !ok {
		return Tool{}, false
	}
	var s struct {
		Description string   `json:"description"`
		Required    []string `json:"required"`
		Properties  map[string]struct {
			Type        json.RawMessage `json:"type"`
			Description string          `json:"description"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(src, &s); err != nil {
		panic(fmt.Sprintf("toolschema: %s: %v", name, err)) // fixed at build time, held by a test
	}
	t := Tool{Description: s.Description}
	for _, f := range slices.Sorted(maps.Keys(s.Properties)) {
		p := s.Properties[f]
		var types []string
		if err := json.Unmarshal(p.Type, &types); err != nil {
			var one string
			if json.Unmarshal(p.Type, &one) == nil {
				types = []string{one}
			}
		}
		t.Fields = append(t.Fields, Field{Name: f, Types: types, Required: slices.Contains(s.Required, f), Description: p.Description})
	}
	return t, true
}
