package capsule

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/internal/testkit"
)

func TestMatchSpawn(t *testing.T) {
	allow := []string{"local/worker", "team/worker", "local/helper", "local/worker"}
	for bare, want := range map[string][]string{
		"worker": {"local/worker", "team/worker"},
		"helper": {"local/helper"},
		"work":   nil,
		"local":  nil,
	} {
		if diff := cmp.Diff(want, MatchSpawn(bare, allow)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", bare, diff)
		}
	}
}

// TestRoostResolve: S15 at spawn time, and what the roost requires of the
// capsule it finds.
func TestRoostResolve(t *testing.T) {
	dir := t.TempDir()
	roost := Roost{Dir: testkit.WriteRoost(t, dir,
		"local/worker", `{"name": "local/worker", "entrypoint": {"command": ["cat"]}}`,
		"local/planner", `{"name": "local/planner", "version": "2.0.1", "entrypoint": {"plan": "p.json"}}`,
		"local/noentry", `{"name": "local/noentry"}`,
		"local/moved", `{"name": "local/elsewhere", "entrypoint": {"command": ["cat"]}}`,
		"local/broken", `{"name": "local/broken", "entrypoint": {"comand": ["cat"]}}`,
	)}
	allow := []string{"local/worker", "local/planner", "local/noentry", "local/moved", "local/broken", "local/absent", "team/dup", "local/dup"}

	rc, err := roost.Resolve("worker", "local/top", allow)
	if err != nil {
		t.Fatal(err)
	}
	if rc.Name != "local/worker" || rc.Version != "0.1.0" || rc.Path != filepath.Join(roost.Dir, "local", "worker", ManifestFile) || rc.Manifest.Entrypoint.Command[0] != "cat" {
		t.Errorf("worker: %+v", rc)
	}
	if rc, err := roost.Resolve("planner", "local/top", allow); err != nil || rc.Version != "2.0.1" || rc.Dir != filepath.Join(roost.Dir, "local", "planner") {
		t.Errorf("planner: %+v, %v", rc, err)
	}

	for _, tt := range []struct {
		bare  string
		allow []string
		want  string
	}{
		{"wrker", allow, `the roost refuses to spawn capsule "wrker": it is not in capabilities.spawn.allow of "local/top", which allows "local/worker", `},
		{"worker", nil, `the roost refuses to spawn capsule "worker": capsule "local/top" may spawn nothing (its capabilities.spawn.allow is empty)`},
		{"dup", allow, `the roost refuses to spawn capsule "dup": it matches "team/dup" and "local/dup" in capabilities.spawn.allow of "local/top", which is ambiguous`},
		{"absent", allow, `capsule "local/absent" is not in the roost ` + roost.Dir + ": there is no " + filepath.Join(roost.Dir, "local/absent/capsule.json")},
		{"noentry", allow, `the roost refuses to spawn "local/noentry": ` + filepath.Join(roost.Dir, "local/noentry/capsule.json") + ` has no entrypoint`},
		{"moved", allow, filepath.Join(roost.Dir, "local/moved/capsule.json") + ` names capsule "local/elsewhere", not "local/moved"`},
		{"broken", allow, filepath.Join(roost.Dir, "local/broken/capsule.json") + `:1:40: entrypoint has neither "plan" nor "command"`},
		{"x", []string{"../x"}, `the roost refuses to spawn "../x": not a namespace/name capsule name`},
		// Not bare names: the error says the bare name to write, as
		// check's capsule-not-allowed warning does, whatever allow holds.
		{"local/worker", allow, `the roost refuses to spawn capsule "local/worker": a capsule step names the capsule by its bare name; write "worker", the bare name, not "local/worker"`},
		{"team/", allow, `the roost refuses to spawn capsule "team/": it names no capsule; a capsule step names the capsule by its bare name, as "worker" for "local/worker"`},
		{"", []string{"team/reviewer"}, `the roost refuses to spawn capsule "": it names no capsule; a capsule step names the capsule by its bare name, as "reviewer" for "team/reviewer"`},
	} {
		_, err := roost.Resolve(tt.bare, "local/top", tt.allow)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s: got %v\nwant %s…", tt.bare, err, tt.want)
		}
	}
}
