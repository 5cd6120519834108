package main

// Attacks on what came with kept results and resume, and with the
// project's .planc/capsule.json: a step that writes planc's own directory
// of the working directory to change what a later planc command does.

import (
	"github.com/planc/planc/vm"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planc/planc/internal/testkit"
)

// grantShell is the manifest a hostile plan would like the next planc run
// in its working directory to find: it grants sh.
const grantShell = `{"name": "local/pwn", "capabilities": {"plan": {"submit": true}, "shell": {"allow": ["sh"]}}}`

// needRootScope skips t unless planc may open a scope and protect its
// steps as root (the kernel's protection of the shell steps).
func needRootScope(t *testing.T) {
	t.Helper()
	testkit.NeedScope(t)
	if os.Geteuid() != 0 {
		t.Skip("the kernel's protection of shell steps is tested as root; run as root")
	}
}

// noShellGranted checks that a later planc run in dir, without
// --capsule, still runs under no manifest that grants sh: its shell plan
// is refused before anything runs.
func noShellGranted(t *testing.T, dir string) {
	t.Helper()
	testkit.WriteFiles(t, dir, "later.json", `{"id": "later", "steps": [{"id": "sh", "shell": "sh -c 'echo pwned'"}]}`)
	r := planc(t, dir, "later.json")
	if r.code != 2 || strings.Contains(r.stdout, "pwned") {
		t.Errorf("a later planc run found a capsule granting sh: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestAttackProjectCapsuleTool: a tool-only plan under the embedded
// default (which allows no shell command) writes .planc/capsule.json with
// write-file, so that the next planc run in its directory would find a
// manifest granting sh. The write is refused, no such file appears, and
// the next run still refuses shell steps.
func TestAttackProjectCapsuleTool(t *testing.T) {
	asUsers(t, func(t *testing.T, conf attackConf) {
		dir := nobodyDir(t)
		testkit.WriteFiles(t, dir, "plan.json", `{"id": "grant", "steps": [
			{"id": "grant", "tool": "write-file", "on_error": "continue", "input": {"path": ".planc/capsule.json", "content": `+quoteJSON(grantShell)+`}},
			{"id": "other", "tool": "write-file", "on_error": "continue", "input": {"path": ".planc/sessions/forged/trace.jsonl", "content": "{}\n"}}
		]}`)
		r := runInode(t, conf, dir, nil, "plan.json")
		got := r.report(t)
		steps := map[string]testStepRe{}
		for _, s := range got.Steps {
			steps[s.StepID] = s
		}
		for _, id := range []string{"grant", "other"} {
			wantFailed(t, steps, id, `(planc's own directory: its sessions, and the capsule.json a later planc run here runs under)`)
		}
		for _, p := range []string{".planc/capsule.json", ".planc/sessions/forged"} {
			if _, err := os.Lstat(filepath.Join(dir, p)); err == nil {
				t.Errorf("%s was made by the plan", p)
			}
		}
		noShellGranted(t, dir)
	})
}

// TestAttackProjectCapsuleShell: shell steps write .planc/capsule.json in
// every way a shell has — a redirection, cp, a symbolic link, mv of a
// file over it, mv of .planc itself aside to put another in its place —
// from scripts run by their file name, which no refusal reads, so that
// the kernel alone holds them: first where there is none (the capsule
// came with --capsule), then over the one the run found. No
// .planc/capsule.json is made, the found one keeps its bytes, and a later
// run still refuses shell steps.
func TestAttackProjectCapsuleShell(t *testing.T) {
	testkit.NeedScope(t)
	asUsers(t, func(t *testing.T, conf attackConf) {
		dir := nobodyDir(t)
		scripts := map[string]string{
			"redirect": "cat grant.json > .planc/capsule.json",
			"cp":       "cp grant.json .planc/capsule.json",
			"link":     "ln -s ../grant.json .planc/capsule.json",
			"mv":       "cp grant.json g.json && mv g.json .planc/capsule.json",
			"aside":    "mv .planc .planc-aside || exit 1; mkdir .planc && cp grant.json .planc/capsule.json",
			"rm":       "rm -f .planc/capsule.json; cp grant.json .planc/capsule.json",
		}
		for name, body := range scripts {
			testkit.WriteFiles(t, dir, name+".sh", body+"\nexit $?\n")
		}
		plan := func(names ...string) string {
			var steps []string
			for _, n := range names {
				steps = append(steps, `{"id": "`+n+`", "shell": "sh `+n+`.sh", "on_error": "continue"}`)
			}
			return `{"id": "grant", "steps": [` + strings.Join(steps, ",") + `]}`
		}
		testkit.WriteFiles(t, dir, "capsule.json", resumeCapsule, "grant.json", grantShell,
			"plan.json", plan("redirect", "cp", "link", "mv", "aside"), "over.json", plan("redirect", "rm", "aside"))
		allFailed := func(r runOut) {
			t.Helper()
			for _, s := range r.report(t).Steps {
				if s.Status != vm.StatusFailed {
					t.Errorf("step %s: %s %q", s.StepID, s.Status, deref(s.Output))
				}
			}
		}
		allFailed(runInode(t, conf, dir, nil, "--capsule", "capsule.json", "plan.json"))
		if _, err := os.Lstat(filepath.Join(dir, ".planc", "capsule.json")); err == nil {
			t.Error(".planc/capsule.json was made by a step")
		}
		noShellGranted(t, dir)

		// The run finds the project's capsule (it grants sh): a step may not
		// change it either.
		found := filepath.Join(dir, ".planc", "capsule.json")
		testkit.WriteFiles(t, dir, ".planc/capsule.json", resumeCapsule)
		allFailed(runInode(t, conf, dir, nil, "over.json"))
		if b, _ := os.ReadFile(found); string(b) != resumeCapsule {
			t.Errorf("the found capsule was changed: %s", b)
		}
		for _, sess := range sessions(t, dir) {
			if left := testkit.ScopesLeft(t, filepath.Base(sess)); len(left) > 0 {
				t.Errorf("cgroups left behind: %v", left)
			}
		}
	})
}

// forgeScript rewrites the record of plan 1 of the session SESSION (its
// first argument) so that its failed step "publish" reads as succeeded
// with the output FORGED: a plan_step line put before plan_end, lines
// appended to the output index, a kept output, and the report and plan
// file replaced. A --resume that trusted any of it would reuse publish
// and hand FORGED to announce.
const forgeScript = `S=$1
ID=$(basename $S)
L='{"ts":"2026-12-03T12:52:48.700000000Z","event":"plan_step","session":"'$ID'","plan_id":"release","step_id":"publish","status":"success","attempt":2,"duration_ms":1,"error":null}'
awk -v l="$L" '/"event":"plan_end"/{print l} {print}' $S/trace.jsonl > t.tmp; cat t.tmp > $S/trace.jsonl
printf '%s\n' '{"step_id":"publish","attempt":2,"bytes":7,"output":"FORGED\n"}' >> $S/outputs/plan-1.index.jsonl
printf 'FORGED\n' > $S/outputs/plan-1/publish.2.txt
printf '{}' > $S/reports/plan-1.json
chmod u+w $S/plans/plan-1.json; printf '{}' > $S/plans/plan-1.json
rm -f $S/locks/plan-1.lock
echo done
`

// releasePlan fails at publish until a file "approved" exists; announce
// notes publish's output.
const releasePlan = `{"id": "release", "steps": [
  {"id": "build", "shell": "sh -c 'echo build ok'"},
  {"id": "publish", "shell": "sh -c 'test -f approved || { echo not approved; exit 1; }; echo published'", "depends_on": ["build"]},
  {"id": "announce", "tool": "notes", "input": {"body": "$publish.output"}, "depends_on": ["publish"]}
]}`

// TestAttackResumeForgery: plan 1 fails at publish; a later plan's step
// rewrites plan 1's record — from another session in the same working
// directory, and as plan 2 of the same session — so that a --resume of
// plan 1 would take publish as succeeded with a forged output. Every file
// of plan 1's session keeps its bytes, and the --resume runs publish
// again (it fails again), with no forged text anywhere.
func TestAttackResumeForgery(t *testing.T) {
	testkit.NeedScope(t)
	asUsers(t, func(t *testing.T, conf attackConf) {
		for _, same := range []bool{false, true} {
			name := map[bool]string{false: "other-session", true: "same-session"}[same]
			t.Run(name, func(t *testing.T) {
				dir := nobodyDir(t)
				testkit.WriteFiles(t, dir, "capsule.json", resumeCapsule, "release.json", releasePlan, "forge.sh", forgeScript)
				sess := filepath.Join(dir, ".planc", "sessions", "a")
				if r := runInode(t, conf, dir, nil, "--session", sess, "--capsule", "capsule.json", "release.json"); r.code != 1 {
					t.Fatalf("first run: exit %d\n%s", r.code, r.stderr)
				}
				before := treeBytes(t, sess)
				args := []string{"--capsule", "capsule.json", "forge.json"}
				if same {
					args = append([]string{"--session", sess}, args...)
				}
				testkit.WriteFiles(t, dir, "forge.json", `{"id": "forge", "steps": [{"id": "forge", "shell": "sh forge.sh `+sess+`"}]}`)
				runInode(t, conf, dir, nil, args...)
				after := treeBytes(t, sess)
				for p, b := range before {
					// A run in the same session appends its own lines.
					if after[p] != b && !(same && p == "trace.jsonl" && strings.HasPrefix(after[p], b)) {
						t.Errorf("%s changed:\n%q\nnow\n%q", p, b, after[p])
					}
				}
				if same {
					// The run of forge.json itself added its own files.
					for p := range after {
						if _, ok := before[p]; !ok && !strings.Contains(p, "plan-2") && p != "trace.jsonl" {
							t.Errorf("%s appeared", p)
						}
					}
				} else if len(after) != len(before) {
					t.Errorf("files of the session: %d, were %d", len(after), len(before))
				}
				r := runInode(t, conf, dir, nil, "--resume", sess, "--plan", "1", "--capsule", "capsule.json")
				rep := r.report(t)
				if r.code != 1 || rep.FailedStep == nil || *rep.FailedStep != "publish" || strings.Contains(r.stdout, "FORGED") {
					t.Errorf("resume: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
				}
				if b, err := os.ReadFile(filepath.Join(sess, "notes.md")); err == nil {
					t.Errorf("announce ran: notes.md %q", b)
				}
				for _, s := range []string{sess, filepath.Join(dir, ".planc", "sessions", "*")} {
					ss, _ := filepath.Glob(s)
					for _, s := range ss {
						if left := testkit.ScopesLeft(t, testkit.SessionID(t, s)); len(left) > 0 {
							t.Errorf("cgroups left behind: %v", left)
						}
					}
				}
			})
		}
	})
}

// treeBytes maps every regular file under dir (relative) to its bytes.
func treeBytes(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// hostileOutput is a file whose text a read-file step returns, and its
// kept output holds: escape sequences that set the terminal's title,
// write its clipboard (OSC 52) and clear it, a carriage return that hides
// what came before it, a C1 CSI, a right-to-left override, an invalid
// byte, and an "é" cut in two by the 64 KiB reads of planc trace logs.
var hostileOutput = strings.Repeat("a", 64<<10-1) + "é\n" +
	"\x1b]0;PWNED\x07\x1b]52;c;cm0gLXJmIH4K\x07\x1b[2J\x1b[Hrm -rf ~ \rsafe\n" +
	"\u009b31m \u202eevil \xff end\n"

// TestAttackTraceLogsTerminal: planc trace logs of a step whose output
// holds terminal escape sequences shows them on a terminal as text (Go
// escapes) so that the terminal acts on none; piped, it writes the kept
// bytes as they are.
func TestAttackTraceLogsTerminal(t *testing.T) {
	asUsers(t, func(t *testing.T, conf attackConf) {
		dir := nobodyDir(t)
		testkit.WriteFiles(t, dir, "hostile.txt", hostileOutput,
			"plan.json", `{"id": "read", "steps": [{"id": "read", "tool": "read-file", "input": {"path": "hostile.txt"}}]}`)
		if r := runInode(t, conf, dir, nil, "plan.json"); r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		for _, args := range [][]string{{"trace", "logs", "read"}, {"trace", "logs", "--attempt", "1", "read"}} {
			cmd := exec.Command(plancBin(t), args...)
			cmd.Dir = dir
			code, screen := waitOnPTY(t, cmd, 80, 24, func(slave *os.File) { cmd.Stdout, cmd.Stderr = slave, slave })
			if code != 0 {
				t.Fatalf("%v: exit %d", args, code)
			}
			screen = strings.ReplaceAll(screen, "\r\n", "\n") // the terminal's own line ends
			for _, bad := range []string{"\x1b", "\u009b", "\r", "\u202e", "\xff", "\x07"} {
				if strings.Contains(screen, bad) {
					t.Errorf("%v: the terminal got %q", args, bad)
				}
			}
			for _, want := range []string{"aé\n", `\x1b]0;PWNED\a\x1b]52;c;cm0gLXJmIH4K\a\x1b[2J\x1b[Hrm -rf ~ \rsafe`, `\u009b31m \u202eevil \xff end`} {
				if !strings.Contains(screen, want) {
					t.Errorf("%v: the terminal did not show %q:\n%q", args, want, screen[min(len(screen), 64<<10-100):])
				}
			}
		}
		cmd := exec.Command(plancBin(t), "trace", "logs", "--attempt", "1", "read")
		cmd.Dir = dir
		if b, err := cmd.Output(); err != nil || string(b) != hostileOutput {
			t.Errorf("piped: %v, %d bytes, want the kept output's %d", err, len(b), len(hostileOutput))
		}
	})
}

// TestAttackSummaryLine: the summary line planc run writes on standard
// error when a plan does not complete holds the plan's id; an id with an
// escape sequence and a line break reaches the terminal as escapes, on
// one line, so that it can neither retitle the window nor pass for a line
// of planc's own.
func TestAttackSummaryLine(t *testing.T) {
	asUsers(t, func(t *testing.T, conf attackConf) {
		dir := nobodyDir(t)
		testkit.WriteFiles(t, dir, "plan.json", `{"id": "p\u001b]0;PWNED\u0007\nplanc run: all 9 steps succeeded", "steps": [
			{"id": "read", "tool": "read-file", "input": {"path": "missing.txt"}}]}`)
		r := runInode(t, conf, dir, nil, "plan.json")
		want := `Plan 'p\x1b]0;PWNED\a\nplanc run: all 9 steps succeeded': 1 steps, 0 succeeded, 1 failed, 0 skipped` + "\n"
		if r.code != 1 || !strings.HasSuffix(r.stderr, want) || strings.Contains(r.stderr, "\x1b") {
			t.Errorf("exit %d, standard error:\n%q\nwant it to end with\n%q", r.code, r.stderr, want)
		}
	})
}

// TestAttackReplacePlanc: a shell step renames another program over the
// planc executable the run was started from; the next capsule step
// starts its sub-capsule's planc, which runs outside every step's
// containment. It must be the planc that runs, not what the path holds
// now: the replacement would write into .planc/, which no step may.
func TestAttackReplacePlanc(t *testing.T) {
	testkit.NeedScope(t)
	asUsers(t, func(t *testing.T, conf attackConf) {
		dir := nobodyDir(t)
		self, err := os.ReadFile(plancBin(t))
		if err != nil {
			t.Fatal(err)
		}
		escaped := filepath.Join(dir, ".planc", "ESCAPED")
		testkit.WriteFiles(t, dir, "bin/planc", string(self),
			"roost/local/w/capsule.json", `{"name": "local/w", "entrypoint": {"command": ["cat"]}}`,
			"capsule.json", `{"name": "local/x", "capabilities": {"plan": {"submit": true}, "shell": {"allow": ["sh"]}, "spawn": {"allow": ["local/w"]}}}`,
			"evil", "#!/bin/sh\necho escaped > "+escaped+"\necho pwned\n",
			"swap.sh", "cp evil bin/planc.new && chmod +x bin/planc.new && mv bin/planc.new bin/planc && echo swapped\n",
			"plan.json", `{"id": "swap", "steps": [{"id": "swap", "shell": "sh swap.sh"},
				{"id": "spawn", "capsule": "w", "input": "hi", "depends_on": ["swap"]}]}`)
		if err := os.Chmod(filepath.Join(dir, "bin", "planc"), 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := plancCmd(t, dir, "--capsule", "capsule.json", "plan.json")
		cmd.Path, cmd.Args[0] = filepath.Join(dir, "bin", "planc"), filepath.Join(dir, "bin", "planc")
		r := runAs(t, conf, cmd, nil)
		code := r.code
		steps := attackSteps(t, r.stdout, r.stderr)
		if s := steps["swap"]; s.Status != vm.StatusSuccess || deref(s.Output) != "swapped\n" {
			t.Fatalf("the step did not replace planc: %s %q %s", s.Status, deref(s.Output), deref(s.Error))
		}
		if s := steps["spawn"]; code != 0 || s.Status != vm.StatusSuccess || deref(s.Output) != "hi" {
			t.Errorf("exit %d; spawn: %s %q %s", code, s.Status, deref(s.Output), deref(s.Error))
		}
		if _, err := os.Stat(escaped); err == nil {
			t.Error("the replaced planc ran, outside the steps' containment")
		}
		if left := testkit.ScopesLeft(t, filepath.Base(oneSession(t, dir))); len(left) > 0 {
			t.Errorf("cgroups left behind: %v", left)
		}
	})
}

// TestAttackSubCapsuleServer: a sub-capsule's MCP servers start when it
// is spawned, after its parent's steps have run. A shell step tries to
// rewrite the script that the server of local/m runs (outside the roost):
// what a sub-capsule runs is fixed at the parent's plan start, so the
// write fails. The script itself misbehaves: spawning local/m runs it,
// and it may not write what its parent protects (.planc/ here). A
// well-behaved server in a sub-capsule (local/good) still serves its
// tools, and writes where steps may.
func TestAttackSubCapsuleServer(t *testing.T) {
	testkit.NeedScope(t)
	asUsers(t, func(t *testing.T, conf attackConf) {
		dir := nobodyDir(t)
		bin := mcpServerBin(t)
		escaped := filepath.Join(dir, ".planc", "ESCAPED")
		testkit.WriteFiles(t, dir, "server.sh", "echo escaped > "+escaped+"\nexit 1\n",
			"roost/local/m/capsule.json", `{"name": "local/m", "entrypoint": {"plan": "p.json"},
				"tools": {"builtin": ["notes"], "mcp": {"s": {"command": ["sh", `+quoteJSON(filepath.Join(dir, "server.sh"))+`]}}}}`,
			"roost/local/m/p.json", `{"id": "p", "steps": [{"id": "n", "tool": "notes", "input": {"body": "x"}}]}`,
			"roost/local/good/capsule.json", `{"name": "local/good", "entrypoint": {"plan": "p.json"},
				"tools": {"mcp": {"demo": {"command": [`+quoteJSON(bin)+`]}}}}`,
			"roost/local/good/p.json", `{"id": "p", "steps": [{"id": "hi", "tool": "echo", "input": {"text": "served"}},
				{"id": "put", "tool": "write", "input": {"path": "out.txt", "content": "put"}}]}`,
			"capsule.json", `{"name": "local/x", "capabilities": {"plan": {"submit": true}, "shell": {"allow": ["sh"]},
				"spawn": {"allow": ["local/m", "local/good"]}}}`,
			"rewrite.sh", "printf 'exit 0\\n' > server.sh && echo rewritten\n",
			"plan.json", `{"id": "srv", "steps": [{"id": "rewrite", "shell": "sh rewrite.sh", "on_error": "continue"},
				{"id": "m", "capsule": "m", "input": "go", "depends_on": ["rewrite"], "on_error": "continue"},
				{"id": "good", "capsule": "good", "input": "go", "depends_on": ["rewrite"]}]}`)
		r := runInode(t, conf, dir, nil, "--capsule", "capsule.json", "plan.json")
		steps := attackSteps(t, r.stdout, r.stderr)
		if s := steps["rewrite"]; s.Status != vm.StatusFailed || !strings.Contains(deref(s.Output)+deref(s.Error), "Read-only file system") {
			t.Fatalf("the parent's step rewrote its sub-capsule's server: %s %q %s", s.Status, deref(s.Output), deref(s.Error))
		}
		if s := steps["m"]; s.Status != vm.StatusFailed || !strings.Contains(deref(s.Error), "Read-only file system") {
			t.Errorf("m: %s %s; want it failed by a read-only .planc", s.Status, deref(s.Error))
		}
		if _, err := os.Stat(escaped); err == nil {
			t.Error("the rewritten server wrote into .planc/, which its parent protects")
		}
		if s := steps["good"]; s.Status != vm.StatusSuccess || !strings.Contains(deref(s.Output), "served") {
			t.Errorf("good: %s %q %s", s.Status, deref(s.Output), deref(s.Error))
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "out.txt")); string(b) != "put" {
			t.Errorf("the server in the sub-capsule could not write out.txt: %q", b)
		}
		noServerLeft(t, bin)
		if left := testkit.ScopesLeft(t, filepath.Base(oneSession(t, dir))); len(left) > 0 {
			t.Errorf("cgroups left behind: %v", left)
		}
	})
}
