package protect

import (
	"strings"
	"testing"
)

// FuzzShell reads any script, as bash -c and as plain words: it must not
// panic, and a refusal must say what it refuses. Its seeds, and the cases
// fuzzing found, are under testdata/fuzz/FuzzShell.
func FuzzShell(f *testing.F) {
	dir := fixture(f)
	c := checker(f, dir)
	f.Fuzz(func(t *testing.T, script string) {
		for _, argv := range [][]string{bash(script), strings.Fields(script)} {
			if r := c.Shell(argv, ""); r != nil && (r.Message == "" || r.Kind != ProtectedPath) {
				t.Errorf("Shell(%q) = %+v", argv, r)
			}
		}
	})
}
