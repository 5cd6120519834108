package main

// repo-files, under the embedded default capsule (a tool-only plan, no
// --capsule): it lists file names beneath the working directory only,
// whatever links the tree holds, and a listing that would run for minutes
// ends with the plan's cancel.

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/vm"
)

// TestAttackRepoFilesLinks: a tree holding symbolic links to / and to a
// directory outside it (a cloned repository may hold them); repo-files
// globs that name the links as directories list nothing through them —
// no /etc/passwd, no name of the outside directory — and a .gitignore
// that is a link to a file outside is not read, as git does not read
// one. The links themselves are listed. As root and as uid 65534 in a
// delegated cgroup; control: the same globs, outside planc, reach
// through the links.
func TestAttackRepoFilesLinks(t *testing.T) {
	t.Parallel()
	globs := map[string]string{"etc": "root/etc/pass*", "walk": "root/etc/**/passwd", "out": "out/*", "outdeep": "out/**", "top": "*"}
	world := func(t *testing.T) string {
		outside := inodeWorld(t)
		testkit.WriteFiles(t, outside, "outside-secret-name.txt", "x", "ign", "*.keep\n")
		dir := inodeWorld(t)
		testkit.WriteFiles(t, dir, "a.keep", "a\n")
		for link, target := range map[string]string{"root": "/", "out": outside, ".gitignore": filepath.Join(outside, "ign")} {
			if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	t.Run("control", func(t *testing.T) {
		dir := world(t)
		for _, g := range []string{"root/etc/pass*", "out/*"} {
			if m, _ := filepath.Glob(filepath.Join(dir, g)); len(m) == 0 {
				t.Errorf("%s reaches nothing through its link outside planc", g)
			}
		}
	})
	asUsers(t, func(t *testing.T, conf attackConf) {
		dir := world(t)
		var steps []map[string]any
		for id, g := range globs {
			steps = append(steps, map[string]any{"id": id, "tool": "repo-files", "input": map[string]string{"glob": g}, "on_error": "continue"})
		}
		plan, _ := json.Marshal(map[string]any{"id": "links", "steps": steps})
		testkit.WriteFiles(t, dir, "plan.json", string(plan))
		r := runInode(t, conf, dir, nil, "plan.json")
		for _, s := range r.report(t).Steps {
			out := deref(s.Output)
			if s.Status != vm.StatusSuccess {
				t.Errorf("%s: %s %s; want success", s.StepID, s.Status, deref(s.Error))
			}
			if s.StepID == "top" {
				if want := ".gitignore\na.keep\nout\nplan.json\nroot"; out != want {
					t.Errorf("*: %q; want the links listed and a.keep, which the linked .gitignore would hide, too: %q", out, want)
				}
				continue
			}
			if s.Output != nil {
				t.Errorf("%s (%s) listed through a symbolic link: %q", s.StepID, globs[s.StepID], out)
			}
		}
	})
}

// TestRepoFilesEndsOnCancel: a repo-files call that would run for
// minutes (5000 files, each held to the 200,000 patterns of a .gitignore)
// is running when SIGINT lands; once its grace runs out it is ended,
// settles failed with ToolEnded, and planc exits canceled.
func TestRepoFilesEndsOnCancel(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var ignore strings.Builder
	for i := range 200000 {
		fmt.Fprintf(&ignore, "x%d[0-9]*.tmp\n", i)
	}
	for i := range 5000 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	plan, _ := json.Marshal(map[string]any{"id": "long", "steps": []map[string]any{
		{"id": "list", "tool": "repo-files", "input": map[string]string{"glob": "*"}}}})
	testkit.WriteFiles(t, dir, "plan.json", string(plan), ".gitignore", ignore.String())
	cmd := exec.Command(plancBin(t), "run", "plan.json")
	cmd.Dir = dir
	var so, se strings.Builder
	cmd.Stdout, cmd.Stderr = &so, &se
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var hung atomic.Bool
	watchdog := time.AfterFunc(45*time.Second, func() { hung.Store(true); cmd.Process.Kill() })
	defer watchdog.Stop()
	waitTraceLine(t, dir, `"event":"plan_step_start"`)
	cmd.Process.Signal(syscall.SIGINT)
	r := runOut{"", "", exitCode(t, cmd.Wait())}
	if hung.Load() {
		t.Fatalf("planc did not end on SIGINT while repo-files ran:\n%s", se.String())
	}
	r.stdout, r.stderr = so.String(), se.String()
	rep := r.report(t)
	if !rep.Canceled || r.code != exitCanceled || len(rep.Steps) != 1 || rep.Steps[0].Status != vm.StatusFailed || deref(rep.Steps[0].Error) != vm.ToolEnded {
		t.Fatalf("exit %d, report %+v; want canceled (exit %d), list failed with %q\n%s", r.code, rep, exitCanceled, vm.ToolEnded, r.stderr)
	}
}
