package protect

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/shlex"

	"github.com/planc/planc/ast"
)

// split is the runtime's split of a command line into words (S14).
func split(t *testing.T, line string) []string {
	t.Helper()
	words, err := shlex.Split(line)
	if err != nil {
		t.Fatal(err)
	}
	return words
}

// TestShellHookWords: an on-shell hook is held against the words the
// runtime runs, whatever quoting and spacing the command line has, and
// against every command of a bash -c or sh -c script.
func TestShellHookWords(t *testing.T) {
	c := checker(t, t.TempDir(), ast.Hook{Index: 0, On: ast.HookOnShell, Match: "rm *", CommitPolicy: ast.CommitDeny})
	for _, line := range []string{
		"rm x", " rm x", "rm\tx", "rm  x", "'rm' x", `r"m" x`, `"rm" "x"`, `r\m x`,
		"bash -c 'cd d && rm x'", "sh -c 'rm x'", "sh -ec 'true; rm x'", "bash -lc 'echo a | rm x'",
		`bash -c "'rm' x"`, `bash -c 'r"m" x'`, `bash -c 'r\m x'`, `bash -c "	rm  x"`,
		"bash -c 'if true; then rm x; fi'", "bash -c 'f() { rm x; }; f'", "bash -c 'echo $(rm x)'",
		"bash -c 'for f in a; do rm $f; done'", "sh -c 'sh -c \"rm x\"'", "bash -c 'eval rm x'",
		"sudo rm x", "env A=1 rm x", "timeout 5 rm x", "nice -n 5 rm x", "bash -c 'command rm x'",
		"xargs rm", "find . -name '*.o' -exec rm {} ;", "/bin/rm x", "bash -c '/usr/bin/rm -f x'",
		"bash -c 'rm x; ('",
	} {
		if r := c.Shell(split(t, line), line); r == nil || r.Kind != CallDenied {
			t.Errorf("%s: not refused by the hook (%v); its commands: %q", line, r, ShellCommands(split(t, line)))
		}
	}
	for _, line := range []string{
		"rmdir x", "echo rm x", "rm", "bash -c 'echo rm x'", "bash script.sh", "bash -c 'printf \"rm x\"'",
		"bash -c 'rmdir x'", "git rm x",
	} {
		if r := c.Shell(split(t, line), line); r != nil {
			t.Errorf("%s: refused: %v", line, r)
		}
	}
}

func TestShellCommands(t *testing.T) {
	tests := []struct {
		line string
		want []string
	}{
		{"rm   -rf  build", []string{"rm -rf build"}},
		{"bash -c 'cd d && rm x'", []string{"bash -c cd d && rm x", "cd d", "rm x"}},
		{`bash -c 'rm "$HOME/x" && r\m y; rm "$HOME/x"'`, []string{`bash -c rm "$HOME/x" && r\m y; rm "$HOME/x"`, `rm "$HOME/x"`, "rm y"}},
		{"sudo -u me /bin/rm x", []string{"sudo -u me /bin/rm x", "/bin/rm x", "rm x"}},
		{"xargs -0 rm -f", []string{"xargs -0 rm -f", "rm -f …"}},
		{"echo hi", []string{"echo hi"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, ShellCommands(split(t, tt.line))); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", tt.line, diff)
		}
	}
	if got := ShellCommands(nil); got != nil {
		t.Errorf("no words: %q", got)
	}
	// A script past the analysis' bounds is read as far as they go.
	long := "bash -c '" + strings.Repeat("true; ", 5000) + "rm x'"
	if got := ShellCommands(split(t, long)); len(got) != 2 {
		t.Errorf("a script of 5001 commands: %d subjects", len(got))
	}
}

// TestShellHookUnread: a script the hooks cannot be held against in full
// is refused by the first denying on-shell hook, and the rest of a script
// that does not parse is held against them piece by piece.
func TestShellHookUnread(t *testing.T) {
	c := checker(t, t.TempDir(),
		ast.Hook{Index: 0, On: ast.HookOnShell, Match: "git push*", CommitPolicy: ast.CommitAllow},
		ast.Hook{Index: 1, On: ast.HookOnShell, Match: "rm *", CommitPolicy: ast.CommitDeny})
	nested := "rm x"
	for range 10 {
		nested = "sh -c " + shQuote(nested)
	}
	for _, argv := range [][]string{
		{"bash", "-c", strings.Repeat("true; ", 5000) + "rm x"},
		{"bash", "-c", strings.Repeat("true; ", 5000)},
		split(t, nested),
	} {
		r := c.Shell(argv, "")
		if r == nil || r.Hook != 1 || !strings.Contains(r.Message, "split the step into smaller ones") {
			t.Errorf("%.40q…: %v", argv, r)
		}
	}
	if r := c.Shell([]string{"bash", "-c", "echo ok; if then; 'rm' x"}, ""); r == nil || r.Hook != 1 {
		t.Errorf("rm in a script's unparsed rest: %v", r)
	}
	if r := c.Shell([]string{"bash", "-c", "echo ok; if then; echo rm x"}, ""); r != nil {
		t.Errorf("an unparsed rest without rm: %v", r)
	}
	// Without a denying on-shell hook nothing is refused for its size.
	if r := checker(t, t.TempDir()).Shell([]string{"bash", "-c", strings.Repeat("true; ", 5000)}, ""); r != nil {
		t.Errorf("no hooks: %v", r)
	}
}

// shQuote quotes s for a shell.
func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// hooksDenyRm is one on-shell hook denying rm.
var hooksDenyRm = []ast.Hook{{Index: 0, On: ast.HookOnShell, Match: "rm *", CommitPolicy: ast.CommitDeny}}
