package main

// The attack class "code injection": a step writes a file that a later
// step or capsule runs — a roost manifest, the file an allowed command
// resolves to, the --capsule manifest. They run in the world of
// attack_world_linux_test.go: as root and as an unprivileged user with a
// delegated cgroup, under each lock.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/vm"
)

// TestAttackCodeInjection: with no shell command allowed at all, a plan
// writes roost/local/evil/capsule.json and roost/local/keep/capsule.json
// with write-file and spawns them: the writes are refused, evil is not in
// the roost and keep runs its own command. write-file over the file the
// allowed "tool" resolves to and over the --capsule manifest is refused
// too; a file put before it on PATH since the plan started (by write-file
// and chmod) makes "tool" refused rather than run. Writes through hard
// links made before the run, which no refusal sees by name, are refused
// by the tools' own check of the file they open. Every protected byte is
// kept.
func TestAttackCodeInjection(t *testing.T) {
	t.Parallel()
	for _, conf := range attackConfs(t) {
		t.Run(conf.name, func(t *testing.T) {
			w := newAttackWorld(t, conf)
			evil := fmt.Sprintf(`{"name": "local/%%s", "entrypoint": {"command": [%q, "write"]}}`, w.attacker)
			keep := `{"name": "local/keep", "entrypoint": {"command": ["cat"]}}`
			tool := "#!/bin/sh\necho tool\n"
			testkit.WriteFiles(t, w.dir, "roost/local/keep/capsule.json", keep, "bin/tool", tool, "early/.keep", "",
				"capsule.json", `{"name": "local/inject", "capabilities": {"plan": {"submit": true},
					"shell": {"allow": ["tool", "chmod"]}, "spawn": {"allow": ["local/evil", "local/keep"]},
					"filesystem": {"read_only": ["guarded"]}},
					"tools": {"builtin": ["write-file"]}}`,
				"noshell.json", `{"name": "local/inject", "capabilities": {"plan": {"submit": true},
					"spawn": {"allow": ["local/evil", "local/keep"]}, "filesystem": {"read_only": ["guarded"]}},
					"tools": {"builtin": ["write-file"]}}`,
				"plan.json", `{"id": "inject", "steps": [
					{"id": "new", "tool": "write-file", "on_error": "continue", "input": {"path": "roost/local/evil/capsule.json", "content": `+quoteJSON(fmt.Sprintf(evil, "evil"))+`}},
					{"id": "over", "tool": "write-file", "on_error": "continue", "input": {"path": "roost/local/keep/capsule.json", "content": `+quoteJSON(fmt.Sprintf(evil, "keep"))+`}},
					{"id": "manifest", "tool": "write-file", "on_error": "continue", "input": {"path": "capsule.json", "content": "{}"}},
					{"id": "alias", "tool": "write-file", "on_error": "continue", "input": {"path": "keep-alias.json", "content": `+quoteJSON(fmt.Sprintf(evil, "keep"))+`}},
					{"id": "spawn-evil", "capsule": "evil", "input": "go", "on_error": "continue", "depends_on": ["new", "over", "alias"]},
					{"id": "spawn-keep", "capsule": "keep", "input": "kept", "on_error": "continue", "depends_on": ["new", "over", "alias"]}
				]}`)
			os.Chmod(filepath.Join(w.dir, "bin", "tool"), 0o755)
			// Other names of protected files, made before the run: no
			// refusal sees them by name, the tools' own check does.
			for _, l := range [][2]string{{"roost/local/keep/capsule.json", "keep-alias.json"}, {"bin/tool", "tool-alias"}} {
				if err := os.Link(filepath.Join(w.dir, l[0]), filepath.Join(w.dir, l[1])); err != nil {
					t.Fatal(err)
				}
			}
			w.env = []string{"PATH=" + filepath.Join(w.dir, "early") + ":" + filepath.Join(w.dir, "bin") + ":" + os.Getenv("PATH")}
			kept := map[string]string{"roost/local/keep/capsule.json": keep, "bin/tool": tool}

			// No shell command is allowed: only tools and capsules.
			os.Rename(filepath.Join(w.dir, "capsule.json"), filepath.Join(w.dir, "full.json"))
			os.Rename(filepath.Join(w.dir, "noshell.json"), filepath.Join(w.dir, "capsule.json"))
			noShell, _ := os.ReadFile(filepath.Join(w.dir, "capsule.json"))
			kept["capsule.json"] = string(noShell)
			got := injectRun(t, w)
			for _, id := range []string{"new", "over", "manifest"} {
				wantFailed(t, got, id, "refused: step writes ")
			}
			wantFailed(t, got, "alias", `is a hard link to a file under the protected path "`+filepath.Join(w.dir, "roost")+`"`)
			wantFailed(t, got, "spawn-evil", `capsule "local/evil" is not in the roost`)
			if s := got["spawn-keep"]; s.Status != vm.StatusSuccess || deref(s.Output) != "kept" {
				t.Errorf("spawn-keep: %s %q %s", s.Status, deref(s.Output), deref(s.Error))
			}
			injectIntact(t, w, kept)

			// An allowed command: its file cannot be written, and a file
			// put before it on PATH is refused, not run.
			os.Rename(filepath.Join(w.dir, "full.json"), filepath.Join(w.dir, "capsule.json"))
			full, _ := os.ReadFile(filepath.Join(w.dir, "capsule.json"))
			kept["capsule.json"] = string(full)
			testkit.WriteFiles(t, w.dir, "plan.json", `{"id": "shadow", "steps": [
				{"id": "bin", "tool": "write-file", "on_error": "continue", "input": {"path": "bin/tool", "content": "#!/bin/sh\necho pwned\n"}},
				{"id": "alias", "tool": "write-file", "on_error": "continue", "input": {"path": "tool-alias", "content": "#!/bin/sh\necho pwned\n"}},
				{"id": "before", "shell": "tool", "depends_on": ["bin", "alias"]},
				{"id": "shadow", "tool": "write-file", "depends_on": ["before"], "input": {"path": "early/tool", "content": "#!/bin/sh\necho pwned\n"}},
				{"id": "x", "shell": "chmod 755 early/tool", "depends_on": ["shadow"]},
				{"id": "after", "shell": "tool", "on_error": "continue", "depends_on": ["x"]}
			]}`)
			got = injectRun(t, w)
			wantFailed(t, got, "bin", `(the file the allowed command "tool" runs)`)
			wantFailed(t, got, "alias", `is the protected path "`+filepath.Join(w.dir, "bin", "tool")+`"`)
			if s := got["before"]; s.Status != vm.StatusSuccess || deref(s.Output) != "tool\n" {
				t.Errorf("before: %s %q %s", s.Status, deref(s.Output), deref(s.Error))
			}
			wantFailed(t, got, "after", `refused: "tool" now resolves to `+filepath.Join(w.dir, "early", "tool"))
			injectIntact(t, w, kept)
		})
	}
}

// TestAttackCodeInjectionNoRoost: when the roost does not exist as the
// plan starts, the kernel cannot hold it read-only, so a step may make it
// (here from a script, which no refusal reads): nothing is spawned from
// it, and write-file cannot make it either.
func TestAttackCodeInjectionNoRoost(t *testing.T) {
	for _, conf := range attackConfs(t) {
		t.Run(conf.name, func(t *testing.T) {
			w := newAttackWorld(t, conf)
			testkit.WriteFiles(t, w.dir,
				"mkroost.sh", fmt.Sprintf("mkdir -p roost/local/made && printf '%%s' '{\"name\": \"local/made\", \"entrypoint\": {\"command\": [%q, \"write\"]}}' > roost/local/made/capsule.json\n", w.attacker),
				"capsule.json", `{"name": "local/inject", "capabilities": {"plan": {"submit": true},
					"shell": {"allow": ["sh"]}, "spawn": {"allow": ["local/made", "local/tool"]}, "filesystem": {"read_only": ["guarded"]}},
					"tools": {"builtin": ["write-file"]}}`,
				"plan.json", `{"id": "noroost", "steps": [
					{"id": "tool", "tool": "write-file", "on_error": "continue", "input": {"path": "roost/local/tool/capsule.json", "content": "{}"}},
					{"id": "made", "shell": "sh mkroost.sh", "depends_on": ["tool"]},
					{"id": "spawn", "capsule": "made", "input": "go", "on_error": "continue", "depends_on": ["made"]}
				]}`)
			got := injectRun(t, w)
			wantFailed(t, got, "tool", `(the roost, whose capsules a capsule step runs)`)
			if s := got["made"]; s.Status != vm.StatusSuccess {
				t.Errorf("made: %s %s", s.Status, deref(s.Error))
			}
			wantFailed(t, got, "spawn", "was not a directory when the plan started, and a capsule the plan itself could have written is never run")
			if _, err := os.Stat(filepath.Join(w.dir, "roost", "local", "tool")); err == nil {
				t.Error("write-file made a roost entry")
			}
			injectIntact(t, w, nil)
		})
	}
}

// injectRun runs the world's plan.json and returns its report's steps.
func injectRun(t *testing.T, w *attackWorld) map[string]vm.StepReport {
	t.Helper()
	r := w.exec(t)
	if r.code != 0 {
		t.Fatalf("planc exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	got := map[string]vm.StepReport{}
	for _, s := range r.report(t).Steps {
		t.Logf("%s: %s %q %s", s.StepID, s.Status, deref(s.Output), deref(s.Error))
		got[s.StepID] = s
	}
	return got
}

// wantFailed fails t unless step id failed with an error holding msg.
func wantFailed(t *testing.T, got map[string]vm.StepReport, id, msg string) {
	t.Helper()
	if s := got[id]; s.Status != vm.StatusFailed || !strings.Contains(deref(s.Error), msg) {
		t.Errorf("%s: %s %s; want it failed with %s", id, s.Status, deref(s.Error), msg)
	}
}

// injectIntact fails t unless the read_only file keeps its bytes (an
// injected capsule's command would write it) and each file of kept
// (relative to the world) holds its bytes.
func injectIntact(t *testing.T, w *attackWorld, kept map[string]string) {
	t.Helper()
	if b, err := os.ReadFile(w.secret); err != nil || string(b) != secretBytes {
		t.Errorf("the read_only file: %q, %v", b, err)
	}
	for name, want := range kept {
		if b, err := os.ReadFile(filepath.Join(w.dir, name)); err != nil || string(b) != want {
			t.Errorf("%s: %q, %v; want %q", name, b, err, want)
		}
	}
}
