package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/check"
	"github.com/planc/planc/host/capenv"
	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/parser"
)

const (
	// manifest grants go and bash, the notes and repo-files tools.
	manifest = `{
  "name": "local/planner",
  "capabilities": {"plan": {"submit": true}, "shell": {"allow": ["go", "bash"]}},
  "tools": {"builtin": ["repo-files", "notes"]}
}
`
	// cargoPlan runs cargo, which manifest does not allow; its second shell
	// step's "gp" is a typo of "go".
	cargoPlan = `{"id": "refresh", "steps": [
  {"id": "list", "tool": "repo-files", "input": {"glob": "tests/**"}},
  {"id": "check", "shell": "cargo test --quiet", "depends_on": ["list"]},
  {"id": "vet", "shell": "gp vet ./...", "depends_on": ["list"]}
]}
`
	// badManifest misspells capabilities.
	badManifest = `{"name": "local/planner", "capabilites": {}}`
)

// testCaps is what manifest grants, as check sees it when it was read
// from capsule.json.
func testCaps(t *testing.T) *check.Capabilities { return testCapsAt(t, "capsule.json") }

// testCapsAt is what manifest grants, as check sees it when it was read
// from path (whose name the fixes give).
func testCapsAt(t *testing.T, path string) *check.Capabilities {
	t.Helper()
	m, ds := parser.ParseManifest([]byte(manifest), parser.DefaultLimits())
	if m == nil || len(ds) > 0 {
		t.Fatalf("the test manifest is refused: %v", ds)
	}
	caps := check.CapabilitiesOf(m)
	caps.Manifest = path
	return caps
}

// cargoWant is what planc check prints for cargoPlan, the manifest read
// from path; an empty path is the embedded default capsule.
func cargoWant(t *testing.T, path string) result {
	t.Helper()
	caps := testCapsAt(t, path)
	if path == "" {
		caps = check.CapabilitiesOf(capenv.DefaultManifest())
		caps.Embedded = true
	}
	_, ds := check.Load([]byte(cargoPlan), caps)
	if len(ds) != 2 || ds[0].Code != "shell-not-allowed" || ds[1].Code != "shell-not-allowed" {
		t.Fatalf("want two shell-not-allowed diagnostics, got %v", ds)
	}
	return result{
		Stdout: block("plan.json", "3:28", "error", ds[0].Message, "shell-not-allowed",
			`  {"id": "check", "shell": "cargo test --quiet", "depends_on": ["list"]},`,
			strings.Repeat(" ", 27)+"^"+strings.Repeat("~", 19)) +
			block("plan.json", "4:26", "error", ds[1].Message, "shell-not-allowed",
				`  {"id": "vet", "shell": "gp vet ./...", "depends_on": ["list"]}`,
				strings.Repeat(" ", 25)+"^"+strings.Repeat("~", 13)),
		Code: 1,
	}
}

// TestCheckCapsule: check runs the capability rules against --capsule,
// else the .planc/capsule.json it finds, else the embedded default
// capsule, and each refusal's fix names that manifest.
func TestCheckCapsule(t *testing.T) {
	dir := inTempDir(t, map[string]string{"capsule.json": manifest, "plan.json": cargoPlan})
	want := cargoWant(t, "capsule.json")
	if !strings.Contains(want.Stdout, `"cargo" is not in capabilities.shell.allow of capsule.json; add "cargo" to capabilities.shell.allow`) {
		t.Errorf("the fix does not name the manifest:\n%s", want.Stdout)
	}
	for _, args := range [][]string{
		{"check", "--capsule", "capsule.json", "plan.json"},
		{"check", "plan.json", "--capsule=capsule.json"},
	} {
		got := run(t, "", args...)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("planc %s (-want +got):\n%s", strings.Join(args, " "), diff)
		}
	}
	// The manifest may come from standard input.
	got := run(t, manifest, "check", "--capsule", "-", "plan.json")
	if diff := cmp.Diff(cargoWant(t, "the manifest on standard input"), got); diff != "" {
		t.Errorf("planc check --capsule - plan.json (-want +got):\n%s", diff)
	}
	// Without one, the embedded default capsule: no shell binaries at all.
	got = run(t, "", "check", "plan.json")
	if diff := cmp.Diff(cargoWant(t, ""), got); diff != "" {
		t.Errorf("planc check plan.json (-want +got):\n%s", diff)
	}
	// With .planc/capsule.json here or in a parent, that one, named by
	// its path from the current directory.
	writeFile(t, filepath.Join(dir, ".planc", "capsule.json"), manifest)
	got = run(t, "", "check", "plan.json")
	if diff := cmp.Diff(cargoWant(t, filepath.Join(".planc", "capsule.json")), got); diff != "" {
		t.Errorf("planc check plan.json, .planc/capsule.json here (-want +got):\n%s", diff)
	}
	writeFile(t, filepath.Join(dir, "sub", "deeper", "plan.json"), cargoPlan)
	t.Chdir(filepath.Join(dir, "sub", "deeper"))
	got = run(t, "", "check", "plan.json")
	if diff := cmp.Diff(cargoWant(t, filepath.Join("..", "..", ".planc", "capsule.json")), got); diff != "" {
		t.Errorf("planc check plan.json, .planc/capsule.json two levels up (-want +got):\n%s", diff)
	}
	// --capsule wins over the one found.
	got = run(t, "", "check", "--capsule", "../../capsule.json", "plan.json")
	if diff := cmp.Diff(cargoWant(t, "../../capsule.json"), got); diff != "" {
		t.Errorf("planc check --capsule ../../capsule.json (-want +got):\n%s", diff)
	}
}

func TestCheckCapsuleRefused(t *testing.T) {
	inTempDir(t, map[string]string{"capsule.json": badManifest, "plan.json": dupKeyPlan})
	_, ds := parser.ParseManifest([]byte(badManifest), parser.DefaultLimits())
	if len(ds) != 1 {
		t.Fatalf("want one diagnostic for the bad manifest, got %v", ds)
	}
	d := ds[0]
	want := result{
		Stdout: block("capsule.json", "1:27", "error", d.Message, d.Code, badManifest, strings.Repeat(" ", 26)+"^"+strings.Repeat("~", 12)),
		Code:   2,
	}
	got := run(t, "", "check", "--capsule", "capsule.json", "plan.json")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("planc check --capsule capsule.json plan.json (-want +got):\n%s", diff)
	}

	got = run(t, "", "check", "--format", "json", "--capsule", "capsule.json", "plan.json")
	if got.Code != 2 || !strings.Contains(got.Stdout, `"file": "capsule.json"`) || strings.Contains(got.Stdout, "plan.json") {
		t.Errorf("--format json: status %d, stdout:\n%s\nwant 2 and only the manifest's diagnostics", got.Code, got.Stdout)
	}

	got = run(t, "", "check", "--capsule", "nope.json", "plan.json")
	want = result{Stderr: "planc check: capsule manifest: open nope.json: no such file or directory; name an existing manifest, or leave --capsule out to use the project's (planc version says which; planc init makes one)\n", Code: 2}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("planc check --capsule nope.json plan.json (-want +got):\n%s", diff)
	}
}

// writeFile writes body to path, making its directories.
func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	testkit.TrustProject(t, path, body)
}
