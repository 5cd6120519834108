package serve

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/planc/planc/host/capsule"
	"github.com/planc/planc/host/shell"
)

// envPlanc names the planc binary the test binary becomes when the host
// starts it as `planc __shim` or `planc __capsule`: in-process, the
// runtime's own executable is this test binary.
const envPlanc = "PLANC_SERVE_TEST_PLANC"

// binDir holds the planc binary plancBinary builds.
var binDir string

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && (os.Args[1] == shell.ShimCommand || os.Args[1] == capsule.Command) {
		bin := os.Getenv(envPlanc)
		if bin == "" {
			fmt.Fprintf(os.Stderr, "serve.test: %s without $%s\n", os.Args[1], envPlanc)
			os.Exit(2)
		}
		err := reexec(bin, os.Args[1:])
		fmt.Fprintf(os.Stderr, "serve.test: exec %s: %v\n", bin, err)
		os.Exit(2)
	}
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

var (
	buildOnce sync.Once
	buildErr  error
)

// plancBinary builds ./cmd/planc once and names it in $PLANC_SERVE_TEST_PLANC,
// so that the shell steps' shim and the capsule steps' sub-capsules, which
// re-execute this test binary, run planc. It skips the test when there is
// no go command.
func plancBinary(t *testing.T) {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build planc with")
	}
	buildOnce.Do(func() {
		if binDir, buildErr = os.MkdirTemp("", "planc-serve-test-"); buildErr != nil {
			return
		}
		bin := filepath.Join(binDir, "planc")
		out, err := exec.Command(gobin, "build", "-o", bin, "../cmd/planc").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		buildErr = os.Setenv(envPlanc, bin)
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
}
