package serve

import (
	"fmt"
	"os"
	"testing"

	"github.com/planc/planc/host/capsule"
	"github.com/planc/planc/host/sandbox"
	"github.com/planc/planc/internal/testkit"
)

// envPlanc names the planc binary the test binary becomes when the host
// starts it as `planc __shim` or `planc __capsule`: in-process, the
// runtime's own executable is this test binary.
const envPlanc = "PLANC_SERVE_TEST_PLANC"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && (os.Args[1] == sandbox.ShimCommand || os.Args[1] == capsule.Command) {
		bin := os.Getenv(envPlanc)
		if bin == "" {
			fmt.Fprintf(os.Stderr, "serve.test: %s without $%s\n", os.Args[1], envPlanc)
			os.Exit(2)
		}
		err := reexec(bin, os.Args[1:])
		fmt.Fprintf(os.Stderr, "serve.test: exec %s: %v\n", bin, err)
		os.Exit(2)
	}
	os.Exit(testkit.Main(m))
}

// plancBinary builds ./cmd/planc once (testkit.PlancBinary) and names it
// in $PLANC_SERVE_TEST_PLANC, so that the shell steps' shim and the
// capsule steps' sub-capsules, which re-execute this test binary, run
// planc. It skips the test when there is no go command.
func plancBinary(t *testing.T) {
	t.Helper()
	t.Setenv(envPlanc, testkit.PlancBinary(t))
}
