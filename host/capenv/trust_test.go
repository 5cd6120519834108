package capenv

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrust: the project's manifest is found and trusted, after which
// Load takes it; a refused manifest is not trusted; without a project
// there is nothing to trust.
func TestTrust(t *testing.T) {
	t.Setenv("PLANC_TRUST_DIR", t.TempDir())
	root := t.TempDir()
	t.Chdir(root)
	if _, _, _, err := Trust(nil, ""); err == nil || !strings.HasPrefix(err.Error(), "there is no ") {
		t.Errorf("no project: %v", err)
	}
	if err := WriteStarter(ProjectFile, Starter("root")); err != nil {
		t.Fatal(err)
	}
	path, sum, errs, err := Trust(nil, "")
	if err != nil || len(errs) > 0 || path != ProjectFile || len(sum) != 64 {
		t.Fatalf("Trust: %q %q %v %v", path, sum, errs, err)
	}
	if p, err := Load("", nil); err != nil || p.Env == nil {
		t.Errorf("Load after Trust: %v", err)
	}
	bad := filepath.Join(root, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"name": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, errs, err := Trust(nil, bad); err != nil || len(errs) == 0 {
		t.Errorf("a refused manifest: %v %v", errs, err)
	}
}
