package testkit

import (
	"github.com/planc/planc/internal/trust"

	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/parser"
)

// WriteFiles writes files under dir from name, content pairs, making
// their directories; names are slash-separated and relative to dir.
func WriteFiles(t testing.TB, dir string, nameContent ...string) {
	t.Helper()
	if len(nameContent)%2 != 0 {
		t.Fatalf("WriteFiles: %d arguments, not name, content pairs", len(nameContent))
	}
	for i := 0; i+1 < len(nameContent); i += 2 {
		p := filepath.Join(dir, filepath.FromSlash(nameContent[i]))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(nameContent[i+1]), 0o644); err != nil {
			t.Fatal(err)
		}
		TrustProject(t, p, nameContent[i+1])
	}
}

// TrustProject records a project capsule written at path (a
// .planc/capsule.json) as trusted, as planc init does, in the record
// Main points $PLANC_TRUST_DIR at; any other path is left alone.
func TrustProject(t testing.TB, path, content string) {
	t.Helper()
	if filepath.Base(path) != "capsule.json" || filepath.Base(filepath.Dir(path)) != ".planc" {
		return
	}
	dir, err := trust.Dir()
	if err != nil {
		t.Fatal(err)
	}
	if err := trust.Record(dir, path, []byte(content)); err != nil {
		t.Fatal(err)
	}
}

// WriteRoost makes dir/roost from capsule name, manifest pairs (each
// manifest at roost/<namespace>/<name>/capsule.json) and returns the
// roost's path.
func WriteRoost(t testing.TB, dir string, nameManifest ...string) string {
	t.Helper()
	roost := filepath.Join(dir, "roost")
	pairs := make([]string, 0, len(nameManifest))
	for i := 0; i+1 < len(nameManifest); i += 2 {
		pairs = append(pairs, nameManifest[i]+"/capsule.json", nameManifest[i+1])
	}
	WriteFiles(t, roost, pairs...)
	return roost
}

// Manifest parses a capsule manifest, failing the test on any
// diagnostic, warnings included.
func Manifest(t testing.TB, src string) *ast.Manifest {
	t.Helper()
	m, ds := parser.ParseManifest([]byte(src), parser.DefaultLimits())
	if m == nil || len(ds) > 0 {
		t.Fatalf("manifest: %v", ds)
	}
	return m
}

// JSONList returns ss as a JSON list of strings, as a manifest's command.
func JSONList(ss []string) string {
	b, _ := json.Marshal(ss) // a []string always marshals
	return string(b)
}

// CopyTree copies the regular files under src into dst, keeping their
// permission bits (an entrypoint script stays executable); dst is made
// as needed.
func CopyTree(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, info.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
}
