package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

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
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, plancBin(t), append([]string{"trace"}, args...)...)
	cmd.Dir = dir
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	return runOut{so.String(), se.String(), exitCode(t, err)}
}
