package capsule

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/planc/planc/host/session"
	"github.com/planc/planc/internal/testkit"
)

// TestRunFiles: at the spawner's plan start, the files every capsule it
// may spawn would run, through the capsules those may spawn in turn: the
// allowed words as resolved from the working directory (a missing one
// with a slash by its path), the command entrypoint's executable and its
// file arguments, the entrypoint plan, the MCP servers' files; a flag, a
// word naming no file and a capsule outside the allow lists add nothing.
func TestRunFiles(t *testing.T) {
	work := t.TempDir()
	roost := testkit.WriteRoost(t, work,
		"local/a", `{"name": "local/a", "capabilities": {"shell": {"allow": ["./tools/x.sh", "./tools/later.sh", "nosuchword"]}, "spawn": {"allow": ["local/b"]}},
			"entrypoint": {"command": ["./run.sh", "tools/arg.txt", "--flag", "word"]}}`,
		"local/b", `{"name": "local/b", "tools": {"mcp": {"s": {"command": ["./srv", "srv.js", "tools/data.json"]}}}, "entrypoint": {"plan": "p.json"}}`,
		"local/c", `{"name": "local/c", "entrypoint": {"command": ["./never.sh"]}}`)
	testkit.WriteFiles(t, work, "tools/x.sh", "#!/bin/sh\n", "tools/arg.txt", "x", "tools/data.json", "{}",
		"roost/local/a/run.sh", "#!/bin/sh\n", "roost/local/b/srv", "#!/bin/sh\n", "roost/local/b/srv.js", "", "roost/local/c/never.sh", "#!/bin/sh\n")
	for _, f := range []string{"tools/x.sh", "roost/local/a/run.sh", "roost/local/b/srv", "roost/local/c/never.sh"} {
		os.Chmod(filepath.Join(work, f), 0o755)
	}
	r, err := Open(roost)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	d := &Launcher{task: &session.Task{WorkDir: work}, roost: r, roostWas: true, from: "local/top", allow: []string{"local/a"}}
	var got []string
	for _, f := range d.RunFiles() {
		got = append(got, strings.TrimPrefix(f.Path, work+"/")+" ("+f.Capsule+")")
	}
	want := []string{"tools/x.sh (local/a)", "tools/later.sh (local/a)", "roost/local/a/run.sh (local/a)", "tools/arg.txt (local/a)",
		"roost/local/b/p.json (local/b)", "roost/local/b/srv (local/b)", "tools/data.json (local/b)", "roost/local/b/srv.js (local/b)"}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("run files\n%q\nwant\n%q", got, want)
	}
}

// TestRoostNoLinks: the roost reads a manifest beneath it without
// following a link, and keeps reading the directory it opened after its
// path has been pointed elsewhere.
func TestRoostNoLinks(t *testing.T) {
	work := t.TempDir()
	testkit.WriteFiles(t, work,
		"real/local/w/capsule.json", `{"name": "local/w", "entrypoint": {"command": ["cat"]}}`,
		"forged/local/w/capsule.json", `{"name": "local/w", "entrypoint": {"command": ["forged"]}}`,
		"elsewhere/capsule.json", `{"name": "local/l", "entrypoint": {"command": ["cat"]}}`)
	if err := os.MkdirAll(filepath.Join(work, "real", "local", "l"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(work, "elsewhere", "capsule.json"), filepath.Join(work, "real", "local", "l", "capsule.json")); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(work, "roost")
	if err := os.Symlink("real", link); err != nil {
		t.Fatal(err)
	}
	r, err := Open(link)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Resolve("l", "local/top", []string{"local/l"}); err == nil || !strings.Contains(err.Error(), "passes through a symbolic link or leads out of the roost") {
		t.Errorf("a manifest that is a link: %v", err)
	}
	os.Remove(link)
	if err := os.Symlink("forged", link); err != nil {
		t.Fatal(err)
	}
	rc, err := r.Resolve("w", "local/top", []string{"local/w"})
	if err != nil || rc.Manifest.Entrypoint.Command[0] != "cat" || !strings.Contains(string(rc.Src), `"cat"`) {
		t.Errorf("after the link was re-pointed: %+v, %v", rc, err)
	}
}
