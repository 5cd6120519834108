package ir_test

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/planc/planc/ir"
)

// TestAppendJSONString agrees with encoding/json on every string it can
// decode back, and always writes valid JSON on one line.
func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{"", "plain", `"q" \ /`, "\n\r\t\b\f\x00\x1f", "<&>", "é ü 日本", "\u2028\u2029", "bad \xff utf8", "\xed\xa0\x80"} {
		b := ir.AppendJSONString(nil, s)
		var back string
		if err := json.Unmarshal(b, &back); err != nil {
			t.Errorf("%q: %s is not JSON: %v", s, b, err)
			continue
		}
		want := s
		if !utf8.ValidString(s) {
			want = string([]rune(s)) // invalid bytes become U+FFFD
		}
		if back != want {
			t.Errorf("%q: round trip gives %q", s, back)
		}
		for _, c := range b {
			if c == '\n' || c == '\r' {
				t.Errorf("%q: %s spans lines", s, b)
			}
		}
	}
}

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
