package main

import (
	"strings"
	"testing"
)

// TestCheckDir: planc check DIR checks every plan file directly in DIR —
// each *.json file but capsule.json — in name order; subdirectories and
// other files are left alone, and a directory without a plan file is a
// usage error.
func TestCheckDir(t *testing.T) {
	inTempDir(t, map[string]string{
		"plans/a.json":       `{"id": "a", "steps": [{"id": "x", "tool": "notes", "input": {"body": "x"}}]}`,
		"plans/b.json":       `{"id": "b", "steps": [{"id": "x", "tool": "notse", "input": {"body": "x"}}]}`,
		"plans/c.json":       `{"id": "c", "steps": [{"id": "x", "tool": "notes", "depends_on": ["y"], "input": {"body": "x"}}]}`,
		"plans/capsule.json": `{"name": "local/not-a-plan"}`,
		"plans/readme.txt":   "not a plan",
		"plans/sub/d.json":   `{"id": "d", "steps": [{"id": "x", "tool": "nope"}]}`,
		"empty/capsule.json": `{"name": "local/e"}`,
	})
	got := run(t, "", "check", "--format", "json", "plans")
	if got.Code != 1 || got.Stderr != "" {
		t.Fatalf("planc check plans: %+v", got)
	}
	for _, want := range []string{`"file":"plans/b.json"`, `"file":"plans/c.json"`} {
		if !strings.Contains(strings.ReplaceAll(got.Stdout, `": "`, `":"`), want) {
			t.Errorf("no diagnostic with %s:\n%s", want, got.Stdout)
		}
	}
	for _, not := range []string{"plans/a.json", "plans/capsule.json", "plans/readme.txt", "plans/sub/d.json"} {
		if strings.Contains(got.Stdout, not) {
			t.Errorf("%s was checked:\n%s", not, got.Stdout)
		}
	}
	if i, j := strings.Index(got.Stdout, "plans/b.json"), strings.Index(got.Stdout, "plans/c.json"); i < 0 || j < i {
		t.Errorf("b.json's diagnostics do not come before c.json's:\n%s", got.Stdout)
	}
	got = run(t, "", "check", "empty")
	if got.Code != 2 || !strings.Contains(got.Stderr, "planc check: empty holds no plan file (a *.json file other than capsule.json)") {
		t.Errorf("planc check empty: %+v", got)
	}
}
