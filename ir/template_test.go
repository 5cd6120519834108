package ir_test

import (
	"testing"

	"github.com/planc/planc/ir"
)

// TestTemplateAppend fills holes with JSON strings, or null for an output
// that is none (S8), and sizes the buffer ahead.
func TestTemplateAppend(t *testing.T) {
	prog := lower(t, `{"id": "a", "tool": "t"}`, `{"id": "b", "tool": "t", "input": {"x": "$a.output", "y": ["$a.status", "$a.output"], "z": "$a.output"}}`)
	tmpl := prog.Steps[1].Input
	vals := []ir.Value{{Text: "say \"hi\""}, {Text: "success"}}
	got := tmpl.Append(nil, vals)
	diff(t, "filled", `{"x":"say \"hi\"","y":["success","say \"hi\""],"z":"say \"hi\""}`, string(got))
	if tmpl.Size(vals) > len(got) || tmpl.Static() {
		t.Errorf("size %d for %d bytes, static %v", tmpl.Size(vals), len(got), tmpl.Static())
	}
	null := []ir.Value{{Null: true}, {Text: "skipped"}}
	diff(t, "null", `{"x":null,"y":["skipped",null],"z":null}`, string(tmpl.Append(nil, null)))
	diff(t, "size", len(tmpl.Append(nil, null)), tmpl.Size(null))
}
