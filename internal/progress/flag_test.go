package progress

import (
	"strings"
	"testing"
)

// TestFlag: --progress's values.
func TestFlag(t *testing.T) {
	for in, want := range map[string]Mode{"true": TTY, "tty": TTY, "lines": Lines, "off": Off, "false": Off} {
		var f Flag
		if err := f.Set(in); err != nil || f.Mode != want {
			t.Errorf("Set(%q): mode %d, err %v; want %d", in, f.Mode, err, want)
		}
	}
	var f Flag
	if err := f.Set("line"); err == nil || !strings.Contains(err.Error(), `did you mean "lines"?`) {
		t.Errorf("Set(\"line\") = %v, want a did-you-mean", err)
	}
	for in, want := range map[string][2]string{"true": {"--progress", "tty"}, "lines": {"--progress=lines", "lines"}} {
		var f Flag
		if err := f.Set(in); err != nil || f.Spelt() != want[0] || f.String() != want[1] {
			t.Errorf("Set(%q): Spelt %q, String %q, err %v; want %q, %q", in, f.Spelt(), f.String(), err, want[0], want[1])
		}
	}
	if got := (&Flag{}).String(); got != "" {
		t.Errorf("an unset Flag's String() = %q, want \"\"", got)
	}
}

// TestValueApart: --progress lines, but not --progress=lines or a plan
// named like a mode without --progress before it.
func TestValueApart(t *testing.T) {
	for _, tt := range []struct {
		args, pos []string
		want      bool
	}{
		{[]string{"--progress", "lines", "p.json"}, []string{"lines", "p.json"}, true},
		{[]string{"-progress", "off"}, []string{"off"}, true},
		{[]string{"--progress=lines", "p.json"}, []string{"p.json"}, false},
		{[]string{"lines"}, []string{"lines"}, false},
		{[]string{"--progress", "p.json"}, []string{"p.json"}, false},
		{nil, nil, false},
	} {
		if got := ValueApart(tt.args, tt.pos); got != tt.want {
			t.Errorf("ValueApart(%q, %q) = %v, want %v", tt.args, tt.pos, got, tt.want)
		}
	}
}
