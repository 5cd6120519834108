package testkit

import (
	"github.com/planc/planc/internal/trust"

	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/planc/planc/host/sandbox"
)

var (
	buildOnce sync.Once
	binDir    string // where PlancBinary built planc; Main removes it
	binPath   string
	buildErr  error
)

// PlancBinary returns the planc binary, built from cmd/planc once per test
// binary into a directory any user may read (a test runs it as nobody).
// The test is skipped where there is no go command. A package that calls
// it runs its tests through Main, which removes the binary at the end.
func PlancBinary(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to build planc with")
	}
	if err := BuildPlanc(); err != nil {
		t.Fatal(err)
	}
	return binPath
}

// BuildPlanc builds the binary PlancBinary returns, once, for a TestMain
// that builds it before any test runs; where there is no go command it
// does nothing (PlancBinary then skips each test).
func BuildPlanc() error {
	gobin, err := exec.LookPath("go")
	if err != nil {
		return nil
	}
	buildOnce.Do(func() {
		if binDir, buildErr = os.MkdirTemp("", "planc-test-bin-"); buildErr != nil {
			return
		}
		os.Chmod(binDir, 0o755)
		binPath, buildErr = buildPlancAs(gobin, "planc")
	})
	return buildErr
}

// buildPlancAs builds ./cmd/planc into binDir as name, with the build tags
// given, and returns its path.
func buildPlancAs(gobin, name string, tags ...string) (string, error) {
	bin := filepath.Join(binDir, name)
	args := []string{"build"}
	if len(tags) > 0 {
		args = append(args, "-tags", strings.Join(tags, ","))
	}
	args = append(args, "-o", bin, "github.com/planc/planc/cmd/planc")
	if out, err := exec.Command(gobin, args...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return bin, nil
}

// Main runs the tests and removes what PlancBinary built; its result is
// the exit status: a TestMain ends with os.Exit(testkit.Main(m)). When
// host/sandbox re-executes the test binary as its shim (`/proc/self/exe
// __shim …`, as sandbox.Contain does for a capsule's command), Main runs the
// shim instead of the tests.
func Main(m *testing.M) int {
	if Reexecuted() {
		return sandbox.ShimMain(os.Args[2:])
	}
	// The trusted manifests' record is the tests' own, never the user's.
	var trustDir string
	if os.Getenv(trust.EnvDir) == "" {
		if d, err := os.MkdirTemp("", "planc-trust-"); err == nil {
			os.Chmod(d, 0o755) // planc under uid 65534 reads it too
			trustDir = d
			os.Setenv(trust.EnvDir, d)
		}
	}
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	if trustDir != "" {
		os.RemoveAll(trustDir)
	}
	return code
}

// Reexecuted reports whether this test binary was re-executed as
// host/sandbox's shim, when Main runs the shim and no test: a TestMain
// prepares its tests only when it was not.
func Reexecuted() bool {
	return len(os.Args) > 1 && os.Args[1] == sandbox.ShimCommand
}
