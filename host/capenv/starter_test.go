package capenv

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/diag"
)

// TestNamePart: planc init names the capsule after its directory,
// made a valid name part.
func TestNamePart(t *testing.T) {
	for dir, want := range map[string]string{
		"planc": "planc", "my project": "my-project", ".hidden": "hidden", "-x_1.2": "x_1.2",
		"日本": "project", "...": "project", "/": "project", "a/b": "a-b",
	} {
		got := namePart(dir)
		if got != want || !ast.IsCapsuleNamePart(got) {
			t.Errorf("namePart(%q) = %q, want %q", dir, got, want)
		}
	}
}

// TestStarter: the starter manifest parses without a diagnostic and is
// named after the directory.
func TestStarter(t *testing.T) {
	src := Starter("my project")
	m, ds := ParseManifest(&diag.File{Name: ProjectFile, Src: src})
	if m == nil || len(ds) != 0 {
		t.Fatalf("the starter manifest: %v", ds)
	}
	if m.Name != "local/my-project" {
		t.Errorf("name %q, want local/my-project", m.Name)
	}
}

// TestWriteStarter: it writes the file and its directory, and never
// replaces one.
func TestWriteStarter(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".planc", "capsule.json")
	if err := WriteStarter(path, []byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := WriteStarter(path, []byte("two")); !errors.Is(err, fs.ErrExist) {
		t.Errorf("a second WriteStarter: %v, want fs.ErrExist", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "one" {
		t.Errorf("the file holds %q, want one", b)
	}
}
