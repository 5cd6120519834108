package composetext

import "testing"

// TestFillUnused: a value no placeholder uses is refused; its fix adds the
// placeholder only when one could name it.
func TestFillUnused(t *testing.T) {
	parts, err := Parse("{a}")
	if err != nil {
		t.Fatal(err)
	}
	for values, want := range map[*map[string]string]string{
		{"a": "1", "b": "2"}:   `value "b" is not used by the template; add {b} to the template or remove the value`,
		{"a": "1", "b c": "2"}: `value "b c" is not used by the template, and no placeholder can name it: a name is a letter or _, then letters, digits, _ or -; rename the value or remove it`,
	} {
		if _, err := Fill(parts, *values); err == nil || err.Error() != want {
			t.Errorf("Fill(%v): %v; want %s", *values, err, want)
		}
	}
	if got, err := Fill(parts, map[string]string{"a": "x"}); err != nil || got != "x" {
		t.Errorf("Fill: %q, %v", got, err)
	}
}
