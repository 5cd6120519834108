package termtext

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestEscapeJSON: a JSON text with C1 and bidirectional controls and the
// line separators in its strings comes out with each as \uXXXX, no such
// character left, and decodes to the same value.
func TestEscapeJSON(t *testing.T) {
	v := map[string]any{"output": "a\u009b31m \u202eevil\u2066 \u2028x\u2029 é ✓", "n": 1}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	got := EscapeJSON(b)
	for _, r := range string(got) {
		if Unsafe(r) {
			t.Errorf("%q left in %s", r, got)
		}
	}
	for _, want := range []string{`\u009b`, `\u202e`, `\u2066`, `\u2028`, `\u2029`, "é ✓"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("%s: no %s", got, want)
		}
	}
	var back map[string]any
	if err := json.Unmarshal(got, &back); err != nil || back["output"] != v["output"] {
		t.Errorf("decoded %v, %v; want %q", back, err, v["output"])
	}
	if plain := []byte(`{"a": "é"}`); &EscapeJSON(plain)[0] != &plain[0] {
		t.Error("a text with nothing to escape was copied")
	}
}
