package testkit

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// NPMPackage returns the directory (npm's --prefix) holding pkg from the
// npm registry, installed once per machine into the user's cache
// directory and reused by later runs: an install takes a minute or more on
// a busy machine, and the tests want the package, not the download. The
// test is skipped where node or npm is missing or the registry cannot be
// reached. Only one test may use a package: it owns the processes started
// from that directory.
func NPMPackage(t testing.TB, pkg string) string {
	t.Helper()
	for _, c := range []string{"node", "npm"} {
		if _, err := exec.LookPath(c); err != nil {
			t.Skipf("no %s on PATH", c)
		}
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "planc-test-npm", strings.NewReplacer("/", "_", "@", "").Replace(pkg))
	done := filepath.Join(dir, ".installed")
	if _, err := os.Stat(done); err == nil {
		return dir
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	install := exec.CommandContext(ctx, "npm", "install", "--no-audit", "--no-fund", "--prefix", dir, pkg)
	if out, err := install.CombinedOutput(); err != nil {
		t.Skipf("the npm registry is not reachable (npm install %s: %v):\n%s", pkg, err, out)
	}
	if err := os.WriteFile(done, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}
