package capsule

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planc/planc/host/session"
	"github.com/planc/planc/internal/testkit"
)

// TestSpawnGuard: a capsule that would run a file missing at plan start,
// or one reached through a symbolic link in the working directory to a
// file outside it, is refused, and so is a capsule that may spawn it; an
// argument naming no file refuses only once it does; links outside the
// working directory, inside the roost, and links in the working directory
// to files in it (./node_modules/.bin/x) are followed and pinned, and a
// capsule whose files all exist is spawned — until a pinned link is
// re-pointed to another file.
func TestSpawnGuard(t *testing.T) {
	work := t.TempDir()
	other := t.TempDir()
	roost := testkit.WriteRoost(t, work,
		"local/missing", `{"name": "local/missing", "capabilities": {"shell": {"allow": ["./tools/later.sh"]}}, "entrypoint": {"plan": "p.json"}}`,
		"local/linked", `{"name": "local/linked", "entrypoint": {"command": ["sh", "tools/link.sh"]}}`,
		"local/outlinked", `{"name": "local/outlinked", "entrypoint": {"command": ["sh", "tools/out-link.sh"]}}`,
		"local/arg", `{"name": "local/arg", "tools": {"mcp": {"s": {"command": ["sh", "tools/arg.sh", "-y", "@scope/pkg"]}}}, "entrypoint": {"plan": "p.json"}}`,
		"local/fine", `{"name": "local/fine", "entrypoint": {"command": ["sh", "tools/x.sh", "`+filepath.Join(other, "out.sh")+`", "./in-roost.sh"]}}`,
		"local/parent", `{"name": "local/parent", "capabilities": {"spawn": {"allow": ["local/missing"]}}, "entrypoint": {"command": ["cat"]}}`,
		"local/lateplan", `{"name": "local/lateplan", "entrypoint": {"plan": "../../../late.json"}}`)
	testkit.WriteFiles(t, work, "tools/x.sh", "", "tools/real.sh", "", "roost/local/fine/in-roost-real.sh", "",
		"roost/local/missing/p.json", `{"id": "p", "steps": []}`, "roost/local/arg/p.json", `{"id": "p", "steps": []}`)
	testkit.WriteFiles(t, other, "real.sh", "")
	for _, l := range [][2]string{{"real.sh", filepath.Join(work, "tools", "link.sh")}, {filepath.Join(other, "real.sh"), filepath.Join(other, "out.sh")},
		{filepath.Join(other, "real.sh"), filepath.Join(work, "tools", "out-link.sh")},
		{"in-roost-real.sh", filepath.Join(work, "roost", "local", "fine", "in-roost.sh")}} {
		if err := os.Symlink(l[0], l[1]); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Open(roost)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	d := &Launcher{task: &session.Task{WorkDir: work}, roost: r, roostWas: true, from: "local/top",
		allow: []string{"local/missing", "local/linked", "local/outlinked", "local/arg", "local/fine", "local/parent", "local/lateplan"}}
	d.reachAtStart()
	for name, want := range map[string]string{
		"local/missing":   `it would run ` + work + `/tools/later.sh (the file its allowed command "./tools/later.sh" runs), which did not exist when the plan started`,
		"local/parent":    `it would run ` + work + `/tools/later.sh (the file its allowed command "./tools/later.sh" runs of "local/missing", which it may spawn), which did not exist`,
		"local/outlinked": `through the symbolic link ` + work + `/tools/out-link.sh in the working directory, which the plan's steps may re-point; name the file it leads to, "` + other + `/real.sh"`,
		// its entrypoint plan, in the working directory, missing: a step
		// could write the plan the capsule then runs under its grants
		"local/lateplan": `it would run ` + work + `/late.json (its entrypoint plan), which did not exist when the plan started`,
		"local/linked":   "",
		"local/arg":      "",
		"local/fine":     "",
	} {
		err := d.spawnGuard(name)
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("%s: %v; want %q", name, err, want)
		}
	}
	// A link outside the working directory, re-pointed since the plan
	// started: the file it led to then is pinned.
	testkit.WriteFiles(t, other, "forged.sh", "")
	if err := os.Remove(filepath.Join(other, "out.sh")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("forged.sh", filepath.Join(other, "out.sh")); err != nil {
		t.Fatal(err)
	}
	if err := d.spawnGuard("local/fine"); err == nil || !strings.Contains(err.Error(), "whose symbolic links lead to "+filepath.Join(other, "forged.sh")+" now") {
		t.Errorf("local/fine after its link was re-pointed: %v", err)
	}
	// A link in the working directory to a file in it, re-pointed since
	// the plan started.
	testkit.WriteFiles(t, work, "tools/forged.sh", "")
	if err := os.Remove(filepath.Join(work, "tools", "link.sh")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("forged.sh", filepath.Join(work, "tools", "link.sh")); err != nil {
		t.Fatal(err)
	}
	if err := d.spawnGuard("local/linked"); err == nil || !strings.Contains(err.Error(), "whose symbolic links lead to "+filepath.Join(work, "tools", "forged.sh")+" now") {
		t.Errorf("local/linked after its link was re-pointed: %v", err)
	}
	// The argument appears after the plan started.
	testkit.WriteFiles(t, work, "tools/arg.sh", "")
	if err := d.spawnGuard("local/arg"); err == nil || !strings.Contains(err.Error(), "which did not exist when the plan started and exists now") {
		t.Errorf("local/arg after tools/arg.sh appeared: %v", err)
	}
	// The entrypoint plan written since: still refused.
	testkit.WriteFiles(t, work, "late.json", `{"id": "forged", "steps": []}`)
	if err := d.spawnGuard("local/lateplan"); err == nil || !strings.Contains(err.Error(), "(its entrypoint plan), which did not exist when the plan started") {
		t.Errorf("local/lateplan after late.json appeared: %v", err)
	}
}
