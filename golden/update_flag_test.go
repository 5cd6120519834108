package golden

import (
	"path"
	"slices"
	"strings"
	"testing"
)

// TestEveryPackageTakesUpdate: `go test ./... -update` hands -update to
// every test binary, and one that does not define the flag fails. So each
// directory with tests imports, in one of its test files, the testkit (which
// defines the flag) or the package that only defines it. Modules of their
// own (bench/) are not part of ./... and are skipped.
func TestEveryPackageTakesUpdate(t *testing.T) {
	const testkit = `"github.com/planc/planc/internal/testkit"`
	const update = `"github.com/planc/planc/internal/testkit/update"`
	files := repoFiles(t)
	var modules []string // directories of nested modules, with a slash
	for _, f := range files {
		if path.Base(f.rel) == "go.mod" && f.rel != "go.mod" {
			modules = append(modules, path.Dir(f.rel)+"/")
		}
	}
	hasTests, takes := map[string]bool{}, map[string]bool{}
	for _, f := range files {
		dir := path.Dir(f.rel)
		if !strings.HasSuffix(f.rel, "_test.go") || slices.Contains(strings.Split(dir, "/"), "testdata") ||
			slices.ContainsFunc(modules, func(m string) bool { return strings.HasPrefix(f.rel, m) }) {
			continue
		}
		hasTests[dir] = true
		for _, line := range f.lines {
			if strings.Contains(line, testkit) || strings.Contains(line, update) {
				takes[dir] = true
				break
			}
		}
	}
	if len(hasTests) < 10 {
		t.Fatalf("found tests in %d directories only: %v", len(hasTests), hasTests)
	}
	var out []finding
	for dir := range hasTests {
		if !takes[dir] {
			out = append(out, finding{dir, 0, "no test file imports " + testkit + " or " + update + "; add update_test.go with `import _ " + update + "` so that go test ./... -update does not fail here"})
		}
	}
	slices.SortFunc(out, func(a, b finding) int { return strings.Compare(a.file, b.file) })
	report(t, "test packages do not take -update", out)
}
