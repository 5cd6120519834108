package termtext

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestSafeWriter: line feeds and tabs pass, every other unsafe character
// and invalid byte is shown escaped, and a character cut between two
// writes comes out whole; one still cut at the end is shown by Flush.
func TestSafeWriter(t *testing.T) {
	var b bytes.Buffer
	w := NewSafeWriter(&b)
	for _, p := range []string{"a\tb\n\x1b]0;t\a\r", "\xe2\x9c", "\x93 \u202e\xff", "\xe2"} {
		if n, err := w.Write([]byte(p)); n != len(p) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", p, n, err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), "a\tb\n\\x1b]0;t\\a\\r✓ \\u202e\\xff\\xe2"; got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
}

// TestJSONWriter: JSON written in pieces that cut a character comes out
// escaped as EscapeJSON escapes it whole, and decodes to the same value.
func TestJSONWriter(t *testing.T) {
	src := []byte(`{"output":"x` + "\u202e" + `y ✓"}`)
	var b bytes.Buffer
	w := NewJSONWriter(&b)
	for i := range src {
		if _, err := w.Write(src[i : i+1]); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := b.String(), string(EscapeJSON(src)); got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
	var a, c map[string]string
	if json.Unmarshal(src, &a) != nil || json.Unmarshal(b.Bytes(), &c) != nil || a["output"] != c["output"] {
		t.Errorf("%q does not decode to the value of %q", b.String(), src)
	}
}
