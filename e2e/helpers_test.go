package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/planc/planc/internal/testkit"
)

// abs is path made absolute.
func abs(t *testing.T, path string) string {
	t.Helper()
	p, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// writeFile writes body at path, making its directory; a project capsule
// (.planc/capsule.json) is recorded as trusted, as planc init does.
func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	testkit.TrustProject(t, path, body)
}

// plancTrace runs `planc trace args…` in dir, at most a minute.
func plancTrace(t *testing.T, dir string, args ...string) runOut {
	t.Helper()
	so, se, code := testkit.RunCmd(t, testkit.PlancCmd(t, dir, "trace", args...))
	return runOut{so, se, code}
}
