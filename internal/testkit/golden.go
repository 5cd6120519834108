package testkit

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/internal/testkit/update"
)

// Update is the -update flag (package update): with it, GoldenFile and
// GoldenSection rewrite what they would compare with (review the diff
// before committing).
var Update = update.Update

// GoldenFile compares got with the file path, or with -update rewrites the
// file; what names the content in a failure ("diagnostics", "IR", …).
func GoldenFile(t testing.TB, path, got, what string) {
	t.Helper()
	if *Update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s: %s differs (-want +got; go test -update rewrites it):\n%s", what, path, diff)
	}
}

// GoldenSection compares want with what stands between the markers begin
// and end in the document path, or with -update writes want there; what
// names the section in a failure.
func GoldenSection(t testing.TB, path, begin, end, want, what string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("%s lacks the markers %q … %q", path, begin, end)
	}
	if *Update {
		doc = doc[:i+len(begin)] + want + doc[j:]
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got := doc[i+len(begin) : j]; got != want {
		t.Errorf("%s is stale in %s; run go test -update\n--- got\n%s\n--- want\n%s", what, path, got, want)
	}
}
