package ast

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseEnvValue(t *testing.T) {
	tests := []struct {
		v    string
		want []EnvPart
		err  string
	}{
		{"", nil, ""},
		{"plain", []EnvPart{{Lit: "plain"}}, ""},
		{"${A}", []EnvPart{{Ref: "A"}}, ""},
		{"x${A_1}y${_b}", []EnvPart{{Lit: "x"}, {Ref: "A_1"}, {Lit: "y"}, {Ref: "_b"}}, ""},
		{"$$ $x $ $", []EnvPart{{Lit: "$ $x $ $"}}, ""},
		{"$${A}", []EnvPart{{Lit: "${A}"}}, ""},
		{"$$$${A}", []EnvPart{{Lit: "$${A}"}}, ""},
		{"$$${A}", []EnvPart{{Lit: "$"}, {Ref: "A"}}, ""},
		{"${A", nil, `"${A" has a "${" that no "}" closes`},
		{"${1A}", nil, `"${1A}" is not a reference to a variable`},
		{"${A:-x}", nil, `"${A:-x}" is not a reference to a variable`},
		{"${}", nil, `"${}" is not a reference to a variable`},
	}
	for _, tt := range tests {
		got, err := ParseEnvValue(tt.v)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("%q: error %v, want %q", tt.v, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tt.v, err)
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%q (-want +got):\n%s", tt.v, d)
		}
	}
}
