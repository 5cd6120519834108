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
	// Others describes every member not among Fields (Name "", never
	// required) when the schema's additionalProperties allows them; nil
	// when it allows none.
	Others *Field
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
		Description string              `json:"description"`
		Required    []string            `json:"required"`
		Properties  map[string]property `json:"properties"`
		Additional  json.RawMessage     `json:"additionalProperties"`
	}
	if err := json.Unmarshal(src, &s); err != nil {
		panic(fmt.Sprintf("toolschema: %s: %v", name, err)) // fixed at build time, held by a test
	}
	t := Tool{Description: s.Description}
	for _, f := range slices.Sorted(maps.Keys(s.Properties)) {
		p := s.Properties[f]
		t.Fields = append(t.Fields, Field{Name: f, Types: p.types(), Required: slices.Contains(s.Required, f), Description: p.Description})
	}
	var other property
	if len(s.Additional) > 0 && json.Unmarshal(s.Additional, &other) == nil {
		// A schema object: the members it allows. false allows none.
		t.Others = &Field{Types: other.types(), Description: other.Description}
	}
	return t, true
}

// property is a member's schema, as far as Describe reads it.
type property struct {
	Type        json.RawMessage `json:"type"`
	Description string          `json:"description"`
}

// types returns the JSON types the schema allows, one or a list.
func (p property) types() []string {
	var types []string
	if err := json.Unmarshal(p.Type, &types); err != nil {
		var one string
		if json.Unmarshal(p.Type, &one) == nil {
			types = []string{one}
		}
	}
	return types
}
