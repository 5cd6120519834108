package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/check"
	"github.com/planc/planc/host/capenv"
	"github.com/planc/planc/parser"
)

// TestInit: planc init writes .planc/capsule.json, a manifest that parses
// without a diagnostic, explains its sections in "$comment" members and
// grants what the embedded default grants; it never overwrites one, and
// says when it hides a parent's.
func TestInit(t *testing.T) {
	dir := inTempDir(t, nil)
	project := filepath.Join(dir, "my project")
	if err := os.Mkdir(project, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(project)
	got := run(t, "", "init")
	if got.Code != 0 || got.Stderr != "" || !strings.HasPrefix(got.Stdout, "wrote .planc/capsule.json: ") ||
		!strings.HasSuffix(got.Stdout, "\ncommit .planc/capsule.json with your project; keep .planc/sessions/ (what each run leaves) out of it: add \".planc/sessions/\" to .gitignore\n") {
		t.Fatalf("planc init: %+v", got)
	}
	path := filepath.Join(project, ".planc", "capsule.json")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, ds := parser.ParseManifest(src, parser.DefaultLimits())
	if m == nil || len(ds) > 0 {
		t.Fatalf("the starting capsule is refused: %v\n%s", ds, src)
	}
	if m.Name != "local/my-project" || strings.Count(string(src), `"$comment"`) < 6 {
		t.Errorf("name %q, or too few comments:\n%s", m.Name, src)
	}
	def := capenv.DefaultManifest()
	if d := cmp.Diff(check.CapabilitiesOf(def), check.CapabilitiesOf(m)); d != "" || !m.Capabilities.PlanSubmit || len(m.Tools.MCP) > 0 || len(m.Capabilities.ReadOnly) > 0 {
		t.Errorf("the starting capsule grants other than the embedded default (-default +init):\n%s", d)
	}

	// Never overwritten.
	if err := os.WriteFile(path, []byte(`{"name": "local/mine"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	got = run(t, "", "init")
	if got.Code != 1 || !strings.Contains(got.Stderr, ".planc/capsule.json exists already") {
		t.Errorf("planc init over one: %+v", got)
	}
	if b, _ := os.ReadFile(path); string(b) != `{"name": "local/mine"}` {
		t.Errorf("planc init overwrote it: %s", b)
	}

	// Below a project, a new one hides the parent's, and says so.
	sub := filepath.Join(project, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(sub)
	got = run(t, "", "init")
	if got.Code != 0 || got.Stderr != "planc init: note: it takes the place of ../.planc/capsule.json from here down\n" {
		t.Errorf("planc init below a project: %+v", got)
	}
	if got := run(t, "", "init", "x"); got.Code != 2 || !strings.Contains(got.Stderr, `unexpected argument "x"`) {
		t.Errorf("planc init x: %+v", got)
	}
}

// TestVerbose: with --verbose, each command that uses a capsule says on
// standard error which one, and only then.
func TestVerbose(t *testing.T) {
	dir := inTempDir(t, map[string]string{"plan.json": validPlan})
	const none = "capsule: the embedded default (there is no .planc/capsule.json in the current directory or a parent; planc init makes one)\n"
	for _, args := range [][]string{{"check"}, {"dump-ir"}, {"graph"}, {"run", "--dry-run"}} {
		got := run(t, "", append(args, "plan.json")...)
		if got.Code != 0 || got.Stderr != "" {
			t.Errorf("planc %v: %+v", args, got)
		}
		got = run(t, "", append(args, "--verbose", "plan.json")...)
		if got.Code != 0 || got.Stderr != "planc "+args[0]+": "+none {
			t.Errorf("planc %v --verbose: %+v", args, got)
		}
	}
	if got := run(t, "", "serve", "--mcp", "--verbose"); got.Code != 0 || !strings.HasPrefix(got.Stderr, "planc serve: "+none) {
		t.Errorf("planc serve --mcp --verbose: %+v", got)
	}
	writeFile(t, filepath.Join(dir, ".planc", "capsule.json"), manifest)
	got := run(t, "", "check", "--verbose", "plan.json")
	if got.Stderr != "planc check: capsule: .planc/capsule.json (found from the current directory)\n" {
		t.Errorf("planc check --verbose with .planc/capsule.json: %+v", got)
	}
	got = run(t, manifest, "check", "--verbose", "--capsule", "-", "plan.json")
	if got.Stderr != "planc check: capsule: the manifest on standard input (--capsule)\n" {
		t.Errorf("planc check --verbose --capsule -: %+v", got)
	}
}
