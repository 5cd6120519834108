package protect

import (
	"strings"
	"testing"

	"github.com/planc/planc/ast"
)

// FuzzShell reads any script, as bash -c and as plain words: it must not
// panic, and a refusal must say what it refuses; the commands a hook is
// held against start with the words joined. Its seeds, and the cases
// fuzzing found, are under testdata/fuzz/FuzzShell.
func FuzzShell(f *testing.F) {
	dir := fixture(f)
	c := checker(f, dir)
	hooked := checker(f, dir, ast.Hook{Index: 0, On: ast.HookOnShell, Match: "rm *", CommitPolicy: ast.CommitDeny})
	f.Fuzz(func(t *testing.T, script string) {
		for _, argv := range [][]string{bash(script), strings.Fields(script)} {
			if r := c.Shell(argv, ""); r != nil && (r.Message == "" || r.Kind != ProtectedPath) {
				t.Errorf("Shell(%q) = %+v", argv, r)
			}
			if r := hooked.Shell(argv, ""); r != nil && r.Message == "" {
				t.Errorf("hooked Shell(%q) = %+v", argv, r)
			}
			if cmds := ShellCommands(argv); len(argv) > 0 && (len(cmds) == 0 || cmds[0] != strings.Join(argv, " ")) {
				t.Errorf("ShellCommands(%q) = %q", argv, cmds)
			}
		}
	})
}
