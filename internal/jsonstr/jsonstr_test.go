package jsonstr

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// TestAppend agrees with encoding/json on every string it can
// decode back, and always writes valid JSON on one line.
func TestAppend(t *testing.T) {
	for _, s := range []string{"", "plain", `"q" \ /`, "\n\r\t\b\f\x00\x1f", "<&>", "é ü 日本", "\u2028\u2029", "bad \xff utf8", "\xed\xa0\x80"} {
		b := Append(nil, s)
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
