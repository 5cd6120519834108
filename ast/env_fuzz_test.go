package ast

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzParseEnvValue: a manifest's env value template never panics, and a
// template it accepts means the same once its parts are written back out
// (literal "$" doubled, references as ${NAME}): parsing that text gives
// the same parts. Literal parts never hold an unescaped reference.
func FuzzParseEnvValue(f *testing.F) {
	for _, s := range []string{"", "plain", "${A}", "x${A_1}y${_b}", "$$ $x $ $", "$${A}", "$$$${A}", "${A", "${1A}", "${A:-x}", "${}", "$", "$$", "${A}${B}", "\x00${A}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		parts, err := ParseEnvValue(v)
		if err != nil {
			if parts != nil {
				t.Fatalf("%q: parts %v with error %v", v, parts, err)
			}
			return
		}
		var b strings.Builder
		for i, p := range parts {
			switch {
			case p.Ref != "" && p.Lit != "":
				t.Fatalf("%q: part %d is both text and a reference: %+v", v, i, p)
			case p.Ref != "":
				if !IsEnvName(p.Ref) {
					t.Fatalf("%q: reference %q is not a variable name", v, p.Ref)
				}
				b.WriteString("${" + p.Ref + "}")
			case p.Lit == "":
				t.Fatalf("%q: part %d is empty", v, i)
			default:
				if i > 0 && parts[i-1].Ref == "" {
					t.Fatalf("%q: two literal parts in a row: %v", v, parts)
				}
				b.WriteString(strings.ReplaceAll(p.Lit, "$", "$$"))
			}
		}
		again, err := ParseEnvValue(b.String())
		if err != nil {
			t.Fatalf("%q written back as %q: %v", v, b.String(), err)
		}
		if d := cmp.Diff(parts, again); d != "" {
			t.Fatalf("%q written back as %q parses otherwise (-first +again):\n%s", v, b.String(), d)
		}
	})
}
