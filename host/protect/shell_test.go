package protect

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var none outcome

func TestShellWords(t *testing.T) {
	dir := fixture(t)
	c := checker(t, dir)
	a, src := denied("src/a.go", "src"), denied("src", "src")
	tests := []struct {
		argv []string
		want outcome
	}{
		// rm, rmdir, unlink
		{[]string{"rm", "src/a.go"}, a},
		{[]string{"rm", "-rf", "src"}, src},
		{[]string{"rm", "-rf", "--", "src/"}, src},
		{[]string{"rm", "src/a.go", "-f"}, a}, // options after operands
		{[]string{"/bin/rm", "src/a.go"}, a},
		{[]string{"rm", "-rf", "."}, denied(".", "src")}, // contains src
		{[]string{"rm", "-rf", "out", "src2", "build"}, none},
		{[]string{"rmdir", "src/sub"}, denied("src/sub", "src")},
		{[]string{"unlink", "go.mod"}, denied("go.mod", "go.mod")},
		{[]string{"shred", "-n", "3", "-u", "go.mod"}, denied("go.mod", "go.mod")},
		// mv: sources and destination
		{[]string{"mv", "src/a.go", "out/"}, a},
		{[]string{"mv", "out/x", "src/"}, src},
		{[]string{"mv", "-t", "src", "out/x"}, denied("src/x", "src")},
		{[]string{"mv", "out/x", "out/y"}, none},
		{[]string{"mv", ".", "/tmp/elsewhere"}, denied(".", "src")},
		// cp: the destination only
		{[]string{"cp", "out/x", "src/y"}, denied("src/y", "src")},
		{[]string{"cp", "src/a.go", "out/"}, none},
		{[]string{"cp", "-r", "out/src", "."}, src}, // ./src: DEST/base(SOURCE)
		{[]string{"cp", "-rT", "out/src", "out/copy"}, none},
		{[]string{"cp", "-t", "src", "out/x"}, denied("src/x", "src")},
		{[]string{"cp", "--target-directory=src", "out/x"}, denied("src/x", "src")},
		{[]string{"cp", "-S", "src/bak", "out/x", "out/y"}, none}, // -S takes an argument
		// install, ln
		{[]string{"install", "-m", "644", "out/x", "src/"}, src},
		{[]string{"install", "-d", "src/d"}, denied("src/d", "src")},
		{[]string{"ln", "-s", "../x", "src/l"}, denied("src/l", "src")},
		{[]string{"ln", "-s", "src/a.go", "out/l"}, none},
		{[]string{"ln", "-s", "out/src"}, src}, // the link is ./src
		// tee, touch, mkdir, truncate
		{[]string{"tee", "out/log", "src/log"}, denied("src/log", "src")},
		{[]string{"tee", "-a", "out/log"}, none},
		{[]string{"touch", "src/new"}, denied("src/new", "src")},
		{[]string{"touch", "-r", "src/a.go", "out/x"}, none},
		{[]string{"mkdir", "-p", "src/new/dir"}, denied("src/new/dir", "src")},
		{[]string{"mkdir", "-m", "755", "out/d"}, none},
		{[]string{"truncate", "-s", "0", "src/a.go"}, a},
		{[]string{"truncate", "-s", "0", "out/x"}, none},
		// chmod, chown, chgrp
		{[]string{"chmod", "644", "src/a.go"}, a},
		{[]string{"chmod", "-w", "src/a.go"}, a},
		{[]string{"chmod", "-R", "755", "."}, denied(".", "src")},
		{[]string{"chmod", "755", "."}, none}, // not recursive
		{[]string{"chmod", "644", "out/x"}, none},
		{[]string{"chmod", "--reference=out/x", "src/a.go"}, a},
		{[]string{"chown", "nobody", "src/a.go"}, a},
		{[]string{"chown", "-R", "nobody:nogroup", "."}, denied(".", "src")},
		{[]string{"chown", "src", "out/x"}, none}, // the owner is no path
		{[]string{"chgrp", "staff", "go.mod"}, denied("go.mod", "go.mod")},
		// sed -i
		{[]string{"sed", "-i", "s/a/b/", "src/a.go"}, a},
		{[]string{"sed", "s/a/b/", "src/a.go"}, none},
		{[]string{"sed", "-i.bak", "-e", "s/a/b/", "src/a.go"}, a},
		{[]string{"sed", "-n", "-e", "p", "src/a.go"}, none},
		{[]string{"sed", "--in-place=.bak", "s/x/y/", "go.mod"}, denied("go.mod", "go.mod")},
		{[]string{"sed", "-Ei", "s/a/b/", "out/x"}, none},
		{[]string{"sed", "-i", "-f", "src/script.sed", "out/x"}, none},
		// dd
		{[]string{"dd", "if=src/a.go", "of=out/x"}, none},
		{[]string{"dd", "if=/dev/zero", "of=src/a.go", "bs=1"}, a},
		// rsync, curl, wget
		{[]string{"rsync", "-a", "out/", "src/"}, src},
		{[]string{"rsync", "-a", "--delete", "out/", "."}, denied(".", "src")},
		{[]string{"rsync", "-a", "src/", "host:backup/"}, none},
		{[]string{"rsync", "-a", "--exclude", "src", "out/", "backup/"}, none},
		{[]string{"curl", "-sSo", "src/x", "https://example.com"}, denied("src/x", "src")},
		{[]string{"curl", "-o", "out/x", "https://example.com"}, none},
		{[]string{"wget", "-O", "src/x", "https://example.com"}, denied("src/x", "src")},
		{[]string{"wget", "-P", "src", "https://example.com"}, denied("src/…", "src")},
		// find
		{[]string{"find", "src", "-name", "*.o", "-delete"}, src},
		{[]string{"find", ".", "-delete"}, denied(".", "src")},
		{[]string{"find", "out", "-exec", "rm", "{}", "+"}, none},
		{[]string{"find", ".", "-type", "f", "-exec", "rm", "{}", ";"}, denied(".", "src")},
		{[]string{"find", "src", "-type", "f"}, none},
		{[]string{"find", ".", "-fprint", "src/list"}, denied("src/list", "src")},
		{[]string{"find", "out", "-exec", "cp", "{}", "src/", ";"}, src},
		// wrappers
		{[]string{"env", "X=1", "rm", "src/a.go"}, a},
		{[]string{"env", "-i", "-u", "HOME", "PATH=/bin", "rm", "src/a.go"}, a},
		{[]string{"env", "-C", "src", "rm", "a.go"}, a},
		{[]string{"env", "-C", "out", "rm", "x"}, none},
		{[]string{"env", "-S", "rm src/a.go"}, a},
		{[]string{"sudo", "-u", "root", "rm", "src/a.go"}, a},
		{[]string{"sudo", "-D", "src", "touch", "x"}, denied("src/x", "src")},
		{[]string{"sudo", "-e", "go.mod"}, denied("go.mod", "go.mod")},
		{[]string{"sudoedit", "src/a.go"}, a},
		{[]string{"nice", "-n", "5", "rm", "src/a.go"}, a},
		{[]string{"timeout", "5", "rm", "src/a.go"}, a},
		{[]string{"timeout", "-s", "KILL", "5s", "rm", "src/a.go"}, a},
		{[]string{"timeout", "5", "cat", "src/a.go"}, none},
		{[]string{"nohup", "setsid", "stdbuf", "-oL", "tee", "src/x"}, denied("src/x", "src")},
		{[]string{"time", "-o", "src/t", "ls"}, denied("src/t", "src")},
		{[]string{"ionice", "-c", "3", "rm", "src/a.go"}, a},
		{[]string{"flock", "src/lock", "true"}, denied("src/lock", "src")},
		{[]string{"flock", "/tmp/l", "-c", "rm src/a.go"}, a},
		{[]string{"command", "rm", "src/a.go"}, a},
		{[]string{"command", "-v", "rm", "src/a.go"}, none},
		{[]string{"busybox", "rm", "src/a.go"}, a},
		{[]string{"doas", "-u", "root", "chmod", "600", "go.mod"}, denied("go.mod", "go.mod")},
		// xargs: its own arguments only
		{[]string{"xargs", "rm", "src/a.go"}, a},
		{[]string{"xargs", "-0", "rm", "-f"}, none},
		{[]string{"xargs", "cp", "-t", "src"}, denied("src/…", "src")},
		{[]string{"xargs", "-I{}", "cp", "{}", "src/"}, src},
		{[]string{"xargs", "cp", "src/a.go"}, none}, // the destination comes from the input
		// readers, and words that are not redirections without a shell
		{[]string{"cat", "src/a.go"}, none},
		{[]string{"grep", "-r", "x", "src"}, none},
		{[]string{"echo", ">", "src/a.go"}, none},
		{[]string{"go", "test", "./..."}, none},
		// paths: components, .., absolute, symbolic links
		{[]string{"rm", "src2/x"}, none},
		{[]string{"rm", "-rf", "src2"}, none},
		{[]string{"rm", "src/../src2/x"}, none},
		{[]string{"rm", "src2/../src/a.go"}, a},
		{[]string{"rm", "../outside"}, none},
		{[]string{"touch", dir + "/src/x"}, denied("src/x", "src")},
		{[]string{"touch", "/tmp/x"}, none},
		{[]string{"rm", "link/a.go"}, a},
		{[]string{"tee", "linkfile"}, a},
		{[]string{"touch", "dangling"}, denied("src/new", "src")},
		{[]string{"touch", "uplink/../x"}, denied("src/x", "src")},
		{[]string{"touch", "link2/x"}, none},
	}
	for _, tt := range tests {
		r := c.Shell(tt.argv, "")
		if diff := cmp.Diff(tt.want, summarize(dir, r)); diff != "" {
			t.Errorf("Shell(%q): (-want +got)\n%s", tt.argv, diff)
		}
		if r != nil && !strings.HasPrefix(r.Error(), "refused: ") {
			t.Errorf("Shell(%q): message %q", tt.argv, r.Error())
		}
	}
}

func TestShellScripts(t *testing.T) {
	dir := fixture(t)
	c := checker(t, dir)
	a, src := denied("src/a.go", "src"), denied("src", "src")
	x := denied("src/x", "src")
	tests := []struct {
		argv []string
		want outcome
	}{
		// every redirection that writes, and those that do not
		{bash("echo hi > src/x"), x},
		{bash("echo hi >> src/x"), x},
		{bash("echo hi >| src/x"), x},
		{bash("echo hi &> src/x"), x},
		{bash("echo hi &>> src/x"), x},
		{bash("echo hi 2> src/x"), x},
		{bash("echo hi >& src/x"), x},
		{bash("cat <> src/x"), x},
		{bash("exec 3> src/x"), x},
		{bash("cat < src/a.go"), none},
		{bash("echo hi 2>&1 >&2; exec 3>&-"), none},
		{bash("cat <<< src/a.go"), none},
		{bash("echo hi > /tmp/x"), none},
		{bash("echo hi > out/x"), none},
		{bash("cat src/a.go"), none},
		// writers in every place a command can be
		{bash("cat out/x | tee src/x"), x},
		{bash("cat src/a.go | tee out/x | wc -l"), none},
		{bash("true && rm src/a.go"), a},
		{bash("false || rm src/a.go"), a},
		{bash("true; rm src/a.go"), a},
		{bash("(rm src/a.go)"), a},
		{bash("{ rm src/a.go; }"), a},
		{bash("echo $(rm src/a.go)"), a},
		{bash("echo `rm src/a.go`"), a},
		{bash("x=$(rm src/a.go) true"), a},
		{bash("diff <(cat out/x) >(tee src/x)"), x},
		{bash("cat <<EOF > src/x\nhello\nEOF"), x},
		{bash("cat > out/x <<EOF\n$(rm src/a.go)\nEOF"), a},
		{bash("cat > out/x <<'EOF'\n$(rm src/a.go)\nEOF"), none}, // quoted: no expansion
		{bash("if true; then rm src/a.go; fi"), a},
		{bash("if rm src/a.go; then :; fi"), a},
		{bash("if false; then :; else touch src/x; fi"), x},
		{bash("while false; do rm src/a.go; done"), a},
		{bash("until true; do rm src/a.go; done"), a},
		{bash("for f in a b; do touch \"src/$f\"; done"), denied("src/…", "src")},
		{bash("for f in $(rm src/a.go); do :; done"), a},
		{bash("case x in x) rm src/a.go;; esac"), a},
		{bash("f() { rm src/a.go; }; f"), a},
		{bash("[[ $(rm src/a.go) ]]"), a},
		{bash("time rm src/a.go"), a},
		{bash("rm src/a.go &"), a},
		{bash("X=1 rm src/a.go"), a},
		{bash("\\rm 'src/a.go'"), a},
		{bash(`rm "src/a.go"`), a},
		{bash(`rm src/\a.go`), a},
		{bash("sudo timeout 5 rm src/a.go"), a},
		{bash("eval 'rm src/a.go'"), a},
		{bash("bash -c 'rm src/a.go'"), a},
		{bash("find . -name '*.go' | xargs rm"), none},
		// flag clusters holding c
		{[]string{"sh", "-c", "rm src/a.go"}, a},
		{[]string{"bash", "-lc", "rm src/a.go"}, a},
		{[]string{"sh", "-ec", "rm src/a.go"}, a},
		{[]string{"bash", "-o", "pipefail", "-c", "rm src/a.go"}, a},
		{[]string{"/usr/bin/bash", "--norc", "-c", "rm src/a.go", "name"}, a},
		{[]string{"bash", "script.sh", "src/a.go"}, none}, // a script file cannot be read
		{[]string{"timeout", "5", "sh", "-c", "rm src/a.go"}, a},
		// globs, braces, expansions
		{bash("rm src/*.go"), denied("src/*.go", "src")},
		{bash("rm -rf *"), denied("*", "src")},
		{bash("rm -rf s*"), denied("s*", "src")},
		{bash("rm -f s*/a.go"), denied("s*/a.go", "src")},
		{bash("rm -f out/*"), none},
		{bash("touch *.txt"), none},
		{bash("rm -rf ./sr?"), denied("sr?", "src")},
		{bash("rm -f 'src/*.go'"), denied("src/*.go", "src")}, // quoted: a literal name
		{bash("rm {out,src}/a.go"), a},
		{bash("rm {out,src2}/x"), none},
		{bash("rm src/$f"), denied("src/…", "src")},
		{bash("rm \"$f\""), none},
		{bash("rm s$f"), none},
		{bash("rm ~/x"), none},
		{bash("rm $HOME/src/a.go"), none},
		// cd
		{bash("cd src && rm -rf ."), src},
		{bash("cd out && rm -rf *"), none},
		{bash("cd out; touch x; cd ..; touch src/x"), x},
		{bash("(cd out && rm x); rm -f a.go"), none},
		{bash("cd \"$D\" && rm -rf *"), denied("*", "src")}, // not literal: stays here
		{bash("cd nonexistent; rm -rf *"), denied("*", "src")},
		{bash("pushd src && touch x"), x},
		// scripts that do not parse
		{bash("rm src/a.go; if"), a},
		{bash("cat out/x; if then src/a.go"), a},
		{bash("cat out/x; if then"), none},
	}
	for _, tt := range tests {
		r := c.Shell(tt.argv, "")
		if diff := cmp.Diff(tt.want, summarize(dir, r)); diff != "" {
			t.Errorf("Shell(%q): (-want +got)\n%s", tt.argv, diff)
		}
	}
}
