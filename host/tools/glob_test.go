package tools

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRepoFilesGitignore: repo-files lists what git would: .gitignore
// files at every level, each for its own directory, deeper ones and later
// lines winning, negations, directory-only and anchored patterns, and
// .git/info/exclude; a file under an ignored directory stays out even
// when a negation names it, as in git.
func TestRepoFilesGitignore(t *testing.T) {
	dir := t.TempDir()
	tree(t, dir,
		"main.go", "debug.log", "keep.log", "build/out.go", "node_modules/left/pad.js",
		"src/a.go", "src/gen.go", "src/tmp/x.go", "src/build/b.go", "src/vendor/v.go",
		"notes/a.md", "notes/draft.md", "notes/sub/draft.md", "notes/sub/final.md",
		"local.go", "examples/a.json", "examples/b.sh", "examples/c.txt", "examples/sub/d.json",
		"node_modules/inner/!keep.js")
	ignore := map[string]string{
		".gitignore": "# comments and blank lines are skipped\n\n*.log\n!keep.log\n/build/\nnode_modules\n!node_modules/inner/*\n",
		// Nested: applies under src only, and overrides the top file.
		"src/.gitignore": "gen.go\ntmp/\nvendor/*\n!vendor/v.go\n",
		// A negation in a deeper file re-includes what the parent ignored.
		"notes/.gitignore":     "draft.md\n",
		"notes/sub/.gitignore": "!draft.md\n",
		".git/info/exclude":    "local.go\r\n",
	}
	for name, body := range ignore {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		glob string
		want []string
	}{
		{"**/*.go", []string{"main.go", "src/a.go", "src/build/b.go", "src/vendor/v.go"}},
		{"*.log", []string{"keep.log"}},
		{"build/out.go", nil},                // anchored /build/: ignored at the top only
		{"node_modules/**", nil},             // an ignored directory is not entered
		{"node_modules/inner/!keep.js", nil}, // even where a negation names a file in it
		{"notes/**/*.md", []string{"notes/a.md", "notes/sub/draft.md", "notes/sub/final.md"}},
		{"local.go", nil},
		{"src/tmp/**", nil},
		{"examples/*.{json,sh}", []string{"examples/a.json", "examples/b.sh"}},
		{"examples/**/*.{json,sh}", []string{"examples/a.json", "examples/b.sh", "examples/sub/d.json"}},
		{"{src,notes}/a.*", []string{"notes/a.md", "src/a.go"}},
		{"{src,src}/a.go", []string{"src/a.go"}},
		{"examples/[ab].*", []string{"examples/a.json", "examples/b.sh"}},
		{"**/.gitignore", []string{".gitignore", "notes/.gitignore", "notes/sub/.gitignore", "src/.gitignore"}},
	} {
		wantRepoFiles(t, dir, tc.glob, tc.want)
	}
}

// wantRepoFiles fails t unless repo-files lists want for glob in dir.
func wantRepoFiles(t *testing.T, dir, glob string, want []string) {
	t.Helper()
	got, err := repoFiles(context.Background(), dir, glob)
	if err != nil {
		t.Errorf("%q: %v", glob, err)
		return
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%q (-want +got):\n%s", glob, diff)
	}
}

// TestRepoFilesBadGlob: a malformed glob is an error that says what is
// wrong, not an empty list.
func TestRepoFilesBadGlob(t *testing.T) {
	dir := t.TempDir()
	for glob, want := range map[string]string{
		"examples/*.{json,sh": "is malformed",
		"src/[":               "is malformed",
		"a/../b":              `".." segment`,
		"/etc/*":              "is absolute",
		"{..,a}/*":            "has a {…} alternative that is empty",
		"{/etc,x}/*":          "has a {…} alternative that is empty",
		// 2^11 patterns through the alternatives; [{,}] and \{ are literals.
		strings.Repeat("{a,b}", 11):                "stands for more than 1024 patterns",
		"{a,{b,c,d}}" + strings.Repeat("{a,b}", 9): "stands for more than 1024 patterns",
	} {
		if _, err := repoFiles(context.Background(), dir, glob); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an error saying %q", glob, err, want)
		}
	}
}

// TestRepoFilesUnreadableIgnore: a .gitignore that cannot be read fails
// the listing rather than listing what it might exclude.
func TestRepoFilesUnreadableIgnore(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads a file whatever its mode")
	}
	dir := t.TempDir()
	tree(t, dir, "a.go", "sub/b.go", "sub/.gitignore")
	if err := os.Chmod(filepath.Join(dir, "sub/.gitignore"), 0); err != nil {
		t.Fatal(err)
	}
	if got, err := repoFiles(context.Background(), dir, "**/*.go"); err == nil {
		t.Errorf("listed %q with an unreadable .gitignore", got)
	}
}

// BenchmarkRepoFiles lists **/*.go in a tree of 1,000 files beside an
// ignored node_modules of 5,000, which the walk does not enter.
func BenchmarkRepoFiles(b *testing.B) {
	dir := b.TempDir()
	var files []string
	for i := range 1000 {
		files = append(files, filepath.Join("src", "p"+string(rune('a'+i%20)), "f"+strings.Repeat("x", i%7)+string(rune('a'+i/20%26))+".go"))
	}
	for i := range 5000 {
		files = append(files, filepath.Join("node_modules", "m"+string(rune('a'+i%26)), "f"+string(rune('a'+i/26%26))+string(rune('a'+i/676))+".js"))
	}
	tree(b, dir, files...)
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("node_modules/\n*.tmp\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := repoFiles(context.Background(), dir, "**/*.go"); err != nil {
			b.Fatal(err)
		}
	}
}

// TestRepoFilesLinks: a symbolic link is listed, never followed — not by
// `**`, and not when the glob names it as a directory (`out/*`), which
// would list what lies outside the working directory; an ignore file
// that is a symbolic link is not read, as git (2.32 and later) does not.
func TestRepoFilesLinks(t *testing.T) {
	outside := t.TempDir()
	tree(t, outside, "secret.txt", "deep/x.txt", "ign")
	os.WriteFile(filepath.Join(outside, "ign"), []byte("*.log\n"), 0o644)
	dir := t.TempDir()
	tree(t, dir, "src/a.go", "sub/.gitignore", "sub/b.log", "sub/c.go")
	for link, target := range map[string]string{"out": outside, "in": "src", "up": "..", "gone": "nowhere", "sub/.gitignore": filepath.Join(outside, "ign")} {
		os.Remove(filepath.Join(dir, link))
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		glob string
		want []string
	}{
		{"*", []string{"gone", "in", "out", "up"}},
		{"**", []string{"gone", "in", "out", "src/a.go", "sub/.gitignore", "sub/b.log", "sub/c.go", "up"}},
		{"out", []string{"out"}},
		{"gone", []string{"gone"}},
		{"out/*", nil},
		{"out/**", nil},
		{"out/secret.txt", nil},
		{"out/deep/x.txt", nil},
		{"o*/secret.txt", nil},
		{"{out,src}/*", []string{"src/a.go"}},
		{"up/*", nil},
		{"in/a.go", nil},
		{"sub/*.log", []string{"sub/b.log"}}, // the linked .gitignore is not read
	} {
		wantRepoFiles(t, dir, tc.glob, tc.want)
	}
}

// TestRepoFilesIgnoreFileBounds: an ignore file is read whole up to 16
// MiB, whatever the length of its lines; a longer one fails the call,
// saying so, without being read into memory.
func TestRepoFilesIgnoreFileBounds(t *testing.T) {
	dir := t.TempDir()
	tree(t, dir, "a.go", "b.log")
	long := strings.Repeat("x", 200_000) + "\n*.log\n"
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte(long), 0o644); err != nil {
		t.Fatal(err)
	}
	wantRepoFiles(t, dir, "*", []string{".gitignore", "a.go"})
	if err := os.Truncate(filepath.Join(dir, ".gitignore"), MaxRead+1); err != nil {
		t.Fatal(err)
	}
	if _, err := repoFiles(context.Background(), dir, "*"); err == nil || !strings.Contains(err.Error(), `the ignore file ".gitignore" is over 16777216 bytes`) {
		t.Errorf("an ignore file over 16 MiB: %v", err)
	}
}

// TestRepoFilesCancel: a listing stops once its context is done, with
// the context's error: a tree of many files held to a .gitignore of many
// patterns would otherwise run on.
func TestRepoFilesCancel(t *testing.T) {
	dir := t.TempDir()
	tree(t, dir, "a", "b/c")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := repoFiles(ctx, dir, "**")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled listing: %v; want context.Canceled", err)
	}
}

// TestGlobExpansions: the count of patterns a glob stands for through its
// {…} alternatives, which checkGlob bounds.
func TestGlobExpansions(t *testing.T) {
	for glob, want := range map[string]int{
		"src/**/*.go":               1,
		"*.{json,sh}":               2,
		"{a,b}/{c,d,e}":             6,
		"{a,{b,c}}":                 3,
		"{a,{b,c}{d,e}}":            5,
		"[{,}]{a,b}":                2,
		`\{a,b\}`:                   1,
		strings.Repeat("{a,b}", 10): 1024,
		strings.Repeat("{a,b}", 40): MaxGlobPatterns + 1,
	} {
		if got, _ := expansions(glob, 0, false); got != want {
			t.Errorf("%s: %d patterns, want %d", glob, got, want)
		}
		if _, err := checkGlob(glob); (err == nil) != (want <= MaxGlobPatterns) {
			t.Errorf("checkGlob(%s): %v", glob, err)
		}
	}
}
