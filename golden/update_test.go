// Package golden holds planc's golden-file tests across the stages: plan in,
// diagnostics / IR text / report out. `go test ./golden -update` rewrites the
// expected files; review the diff before committing.
package golden

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files")

// goldenFile compares got with the file path, or with -update rewrites the
// file; what names the content in a failure ("diagnostics", "IR", …).
func goldenFile(t *testing.T, path, got, what string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./golden -update)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s: %s differs (-want +got):\n%s", what, path, diff)
	}
}

// goldenSection compares want with what stands between the markers begin
// and end in the document path, or with -update writes want there; what
// names the section in a failure.
func goldenSection(t *testing.T, path, begin, end, want, what string) {
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
	if *update {
		doc = doc[:i+len(begin)] + want + doc[j:]
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got := doc[i+len(begin) : j]; got != want {
		t.Errorf("%s is stale in %s; run go test ./golden -update\n--- got\n%s\n--- want\n%s", what, path, got, want)
	}
}
