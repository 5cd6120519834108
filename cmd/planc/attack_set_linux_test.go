package main

// The attacks on the whole protected set: besides the plan file and a
// read_only file, the session's trace.jsonl and session.json, the session
// directory itself, the --capsule manifest, the roost and a manifest in
// it, and the file an allowed command resolved to at plan start. They
// run in the world of attack_world_linux_test.go: as root and as an
// unprivileged user with a delegated cgroup, under each lock.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/planc/planc/internal/sessionfmt"
	"github.com/planc/planc/internal/testkit"
)

// TestAttackDirectWrites: every direct write a step can make — append
// (a forged trace event, a torn half line), overwrite, truncate, rm, mv
// of the file and of its directory, mv over it, ln -sf, a hard link,
// chmod, chown, touch -d, xattrs, sed -i, dd, and writes from perl and
// python3 where they run — on the plan file, trace.jsonl, session.json,
// a read_only file, the --capsule manifest, a roost manifest and an
// allowed command's file, and removing, renaming or writing into the
// session directory, plans/, the read_only directory and the roost:
// made with the system calls by the attacker as a shell step, as a
// capsule's command and as a shell step of a sub-capsule's plan (whose
// planc still writes its own session, inside the parent's), and with the
// command-line tools from a script. All
// are blocked, every byte is kept, and planc's own trace is whole.
func TestAttackDirectWrites(t *testing.T) {
	t.Parallel()
	attackSet(t, "{attacker} files", "capsule:files", "capsule-plan:files", "sh attack.sh")
}

// attackScript is the command-line half of TestAttackDirectWrites: each
// tool against each target and directory named in attack-targets.txt and
// attack-dirs.txt (files, so that no path is in the plan for a refusal
// to catch), one line per attempt, "blocked WHAT" or "ESCAPED WHAT".
const attackScript = `# The system's python3 first: a version manager's shim on PATH costs
# half a second a call, and the script calls it twice a target.
py=python3; [ -x /usr/bin/python3 ] && py=/usr/bin/python3
try() {
	what=$1; shift
	if "$@" >/dev/null 2>&1; then echo "ESCAPED $what"; else echo "blocked $what"; fi
}
for t in $(cat attack-targets.txt); do
	try "shell append to $t" sh -c 'echo pwned >> "$1"' _ "$t"
	try "shell truncate $t" sh -c ': > "$1"' _ "$t"
	try "rm $t" rm -f "$t"
	try "mv $t" mv "$t" "$t.moved"
	try "mv over $t" sh -c 'echo pwned > "$1.new" && mv -f "$1.new" "$1" || { rm -f "$1.new"; false; }' _ "$t"
	try "ln -sf over $t" ln -sf /etc/hostname "$t"
	try "ln $t" ln "$t" hard-link
	try "chmod $t" chmod 666 "$t"
	try "chown $t" chown "$(id -u):$(id -g)" "$t"
	try "touch -d $t" touch -d 2000-01-01 "$t"
	try "sed -i $t" sed -i 's/^/pwned/' "$t"
	try "dd $t" dd if=/dev/zero of="$t" bs=1 count=1 conv=notrunc
	try "truncate -s 0 $t" truncate -s 0 "$t"
	if command -v setfattr >/dev/null; then try "setfattr $t" setfattr -n user.planc -v pwned "$t"; fi
	if perl -e 1 2>/dev/null; then
		try "perl append to $t" perl -e 'open(my $f, ">>", $ARGV[0]) or die; print $f "pwned\n"; close($f) or die' "$t"
		try "perl unlink $t" perl -e 'unlink($ARGV[0]) or die' "$t"
	fi
	if $py -c '' 2>/dev/null; then
		try "python3 append to $t" $py -c 'import sys; open(sys.argv[1], "a").write("pwned\n")' "$t"
		try "python3 replace $t" $py -c 'import os, sys; open(sys.argv[1] + ".py", "w").write("pwned\n"); os.replace(sys.argv[1] + ".py", sys.argv[1])' "$t"
	fi
done
for d in $(cat attack-dirs.txt); do
	try "rm -rf $d" rm -rf "$d"
	try "mv $d" mv "$d" "$d.moved"
	try "touch in $d" touch "$d/completion.json"
	try "mkdir in $d" mkdir "$d/reports-forged"
done
`

// attackSet runs steps as one plan, in a world that also protects and
// targets the session's files, the --capsule manifest, the roost and an
// allowed command's file, under every attackConf.
func attackSet(t *testing.T, steps ...string) {
	for _, conf := range attackConfs(t) {
		t.Run(conf.name, func(t *testing.T) {
			w := newAttackWorld(t, conf)
			// "tool" is allowed, and found first on planc's PATH.
			testkit.WriteFiles(t, w.dir, "bin/tool", "#!/bin/sh\necho tool\n",
				"roost/local/keep/capsule.json", `{"name": "local/keep", "entrypoint": {"command": ["cat"]}}`,
				"attack.sh", attackScript)
			if err := os.Chmod(filepath.Join(w.dir, "bin", "tool"), 0o755); err != nil {
				t.Fatal(err)
			}
			w.allow = []string{"tool"}
			w.env = []string{"PATH=" + filepath.Join(w.dir, "bin") + string(os.PathListSeparator) + os.Getenv("PATH")}
			w.targets = []string{
				filepath.Join(w.sess, sessionfmt.TraceFile), filepath.Join(w.sess, sessionfmt.SessionFile),
				filepath.Join(w.dir, "capsule.json"), filepath.Join(w.dir, "roost", "local", "keep", "capsule.json"),
				filepath.Join(w.dir, "bin", "tool"),
			}
			w.dirs = []string{w.sess, filepath.Join(w.sess, sessionfmt.PlansDir), filepath.Dir(w.secret), filepath.Join(w.dir, "roost")}
			testkit.WriteFiles(t, w.dir,
				"attack-targets.txt", strings.Join(append([]string{w.plan, w.secret}, w.targets...), "\n")+"\n",
				"attack-dirs.txt", strings.Join(w.dirs, "\n")+"\n")
			w.after = func(t *testing.T) {
				checkSessionFiles(t, w.sess)
				// A sub-capsule's planc writes its own session inside its
				// parent's, which the steps see read-only.
				subs, _ := filepath.Glob(filepath.Join(w.sess, sessionfmt.DelegationsDir, "*", sessionfmt.PlansDir, "plan-1.json"))
				if slices.Contains(steps, "capsule-plan:files") && len(subs) != 1 {
					t.Errorf("the sub-capsule's plan files: %q; want one", subs)
				}
				for _, p := range subs {
					checkSessionFiles(t, filepath.Dir(filepath.Dir(p)))
				}
			}
			w.run(t, steps)
		})
	}
}

// checkSessionFiles fails t unless session.json holds the bytes planc
// wrote (its info, indented, as planc writes it) and every line of
// trace.jsonl is planc's own whole JSON line, from session_start to
// session_end.
func checkSessionFiles(t *testing.T, sess string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sess, sessionfmt.SessionFile))
	if err != nil {
		t.Fatal(err)
	}
	var info sessionfmt.SessionInfo
	if err := json.Unmarshal(b, &info); err != nil {
		t.Fatalf("session.json: %v\n%s", err, b)
	}
	want, _ := json.MarshalIndent(info, "", "  ")
	if string(b) != string(want)+"\n" {
		t.Errorf("session.json is not the bytes planc writes:\n%s", b)
	}
	tr, err := os.ReadFile(filepath.Join(sess, sessionfmt.TraceFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(tr), "\n")
	if lines[len(lines)-1] != "" {
		t.Errorf("trace.jsonl does not end with a newline: %q", lines[len(lines)-1])
	}
	lines = lines[:len(lines)-1]
	for i, l := range lines {
		var e struct {
			Event   string `json:"event"`
			Session string `json:"session"`
		}
		if err := json.Unmarshal([]byte(l), &e); err != nil || e.Session != info.ID || strings.Contains(l, "pwned") || strings.Contains(l, "forged") {
			t.Errorf("trace line %d is not planc's: %q (%v)", i+1, l, err)
			continue
		}
		if (i == 0 && e.Event != "session_start") || (i == len(lines)-1 && e.Event != "session_end") {
			t.Errorf("trace line %d: %s", i+1, e.Event)
		}
	}
}
