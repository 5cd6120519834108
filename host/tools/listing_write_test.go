package tools

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestListingWrite: text is FormatText's; json is the listing itself,
// indented, on one document ending in a newline.
func TestListingWrite(t *testing.T) {
	l := Listing{Capsule: "c.json", Tools: []ToolInfo{{Name: "notes", Source: "builtin", Description: "keeps notes", InputSchema: json.RawMessage(`{"type":"object"}`)}}}
	var text strings.Builder
	if err := l.Write(&text, "text"); err != nil || text.String() != FormatText(l.Capsule, l.Tools) {
		t.Errorf("text: %v\n%s", err, text.String())
	}
	var js strings.Builder
	if err := l.Write(&js, "json"); err != nil || !strings.HasSuffix(js.String(), "}\n") || !strings.Contains(js.String(), "\n  \"capsule\": \"c.json\"") {
		t.Fatalf("json: %v\n%s", err, js.String())
	}
	var back Listing
	if err := json.Unmarshal([]byte(js.String()), &back); err != nil || back.Capsule != "c.json" || len(back.Tools) != 1 || back.Tools[0].Name != "notes" {
		t.Errorf("json does not read back: %v %+v", err, back)
	}
}

// TestInputSummary: the one-line summary of an input schema, a root that
// is only a $ref into the same document (as schema generators write one)
// followed to the members it names.
func TestInputSummary(t *testing.T) {
	for schema, want := range map[string]string{
		``:     "any object (the tool gives no input schema)",
		`null`: "any object (the tool gives no input schema)",
		`{"type": "object", "properties": {"path": {"type": "string"}, "n": {"type": ["integer", "null"]}}, "required": ["path"], "additionalProperties": false}`: `{"path": string, "n"?: integer or null}`,
		`{"$ref": "#/$defs/args", "$defs": {"args": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}}}`:                             `{"q": string, …}`,
		`{"$ref": "#/definitions/a~1b", "definitions": {"a/b": {"$ref": "#/definitions/c"}, "c": {"properties": {"x": {"enum": [1, 2]}}}}}`:                       `{"x"?: 1 | 2, …}`,
		`{"$ref": "#/$defs/loop", "$defs": {"loop": {"$ref": "#/$defs/loop"}}}`:                                                                                   `{…}`,
		`{"$ref": "#/$defs/missing"}`: `{…}`,
	} {
		if got := InputSummary(json.RawMessage(schema)); got != want {
			t.Errorf("InputSummary(%s) = %s, want %s", schema, got, want)
		}
	}
}
