package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planc/planc/internal/trust"
)

// TestTrust: a discovered .planc/capsule.json is used only once trusted —
// planc init trusts what it writes, a change or a new manifest is refused
// with the fix, planc trust (with or without PATH) trusts it as it is
// now, and --capsule needs no trust. The record lives in
// $PLANC_TRUST_DIR, not in the project.
func TestTrust(t *testing.T) {
	record := t.TempDir()
	t.Setenv(trust.EnvDir, record)
	dir := inTempDir(t, map[string]string{"plan.json": `{"id": "p", "steps": [{"id": "n", "tool": "notes", "input": {"body": "hi"}}]}`})
	if got := run(t, "", "init"); got.Code != 0 {
		t.Fatalf("planc init: %+v", got)
	}
	if got := run(t, "", "check", "plan.json"); got.Code != 0 {
		t.Fatalf("check under the manifest planc init wrote: %+v", got)
	}
	if entries, _ := os.ReadDir(record); len(entries) != 1 {
		t.Errorf("the record holds %d entries; want 1", len(entries))
	}

	// Changed by hand (or by a plan): refused until trusted again.
	path := filepath.Join(dir, ".planc", "capsule.json")
	src, _ := os.ReadFile(path)
	if err := os.WriteFile(path, []byte(strings.Replace(string(src), `"allow": []`, `"allow": ["sh"]`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	got := run(t, "", "check", "plan.json")
	if got.Code != 2 || got.Stderr != "planc check: capsule manifest: .planc/capsule.json (found from the current directory) has changed since you trusted it: "+
		"read what changed, then run \"planc trust .planc/capsule.json\" (or name it with --capsule)\n" {
		t.Errorf("check under a changed manifest: %+v", got)
	}
	if got := run(t, "", "run", "plan.json"); got.Code != 2 || !strings.Contains(got.Stderr, "has changed since you trusted it") {
		t.Errorf("run under a changed manifest: %+v", got)
	}
	if got := run(t, "", "check", "--capsule", ".planc/capsule.json", "plan.json"); got.Code != 0 {
		t.Errorf("--capsule needs no trust: %+v", got)
	}
	got = run(t, "", "trust")
	if got.Code != 0 || !strings.HasPrefix(got.Stdout, "trusted .planc/capsule.json (sha256 ") || got.Stderr != "" {
		t.Errorf("planc trust: %+v", got)
	}
	if got := run(t, "", "check", "plan.json"); got.Code != 0 {
		t.Errorf("check once trusted again: %+v", got)
	}

	// A new one below, written by hand: not trusted; planc trust PATH.
	sub := filepath.Join(dir, "sub")
	if err := os.MkdirAll(filepath.Join(sub, ".planc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, ".planc", "capsule.json"), []byte(`{"name": "local/sub", "capabilities": {"plan": {"submit": true}}, "tools": {"builtin": ["notes"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(sub)
	got = run(t, "", "check", "../plan.json")
	if got.Code != 2 || !strings.Contains(got.Stderr, ".planc/capsule.json (found from the current directory) is not trusted: ") ||
		!strings.Contains(got.Stderr, `run "planc trust .planc/capsule.json"`) {
		t.Errorf("check under a new manifest: %+v", got)
	}
	t.Chdir(dir)
	if got := run(t, "", "trust", "sub/.planc/capsule.json"); got.Code != 0 {
		t.Errorf("planc trust PATH: %+v", got)
	}
	t.Chdir(sub)
	if got := run(t, "", "check", "../plan.json"); got.Code != 0 {
		t.Errorf("check once trusted: %+v", got)
	}

	// Nothing to trust, or a manifest that would be refused.
	t.Chdir(dir)
	if got := run(t, "", "trust", "missing.json"); got.Code != 2 || !strings.Contains(got.Stderr, "missing.json") {
		t.Errorf("planc trust of a missing file: %+v", got)
	}
	if err := os.WriteFile("bad.json", []byte(`{"nme": "local/x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := run(t, "", "trust", "bad.json"); got.Code != 2 || !strings.Contains(got.Stderr, "bad.json:1:") {
		t.Errorf("planc trust of a refused manifest: %+v", got)
	}
	if got := run(t, "", "trust", "a", "b"); got.Code != 2 {
		t.Errorf("planc trust a b: %+v", got)
	}
}

// TestAdmitStdinManifest: a manifest on standard input without
// plan.submit is named as such in the refusal, not as "-".
func TestAdmitStdinManifest(t *testing.T) {
	inTempDir(t, map[string]string{"plan.json": `{"id": "p", "steps": [{"id": "n", "tool": "notes"}]}`})
	got := run(t, `{"name": "local/mine"}`, "run", "--capsule", "-", "plan.json")
	want := `planc run: capsule "local/mine" in the manifest on standard input is not granted capabilities.plan.submit`
	if got.Code != 2 || !strings.HasPrefix(got.Stderr, want) || strings.Contains(got.Stderr, " in - ") {
		t.Errorf("got %+v\nwant stderr starting %s", got, want)
	}
}
