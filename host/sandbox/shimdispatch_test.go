package sandbox_test

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/planc/planc/host/sandbox"
)

// startedPast is written by this package's init, which runs only after
// host/sandbox's (this package imports it), as planc's own start-up does.
const startedPast = "start-up ran past host/sandbox's init\n"

func init() {
	if len(os.Args) > 1 && os.Args[1] == sandbox.ShimCommand {
		os.Stderr.WriteString(startedPast)
	}
}

// TestShimSkipsPlancsStart: the executable started as `… __shim …` runs
// the shim from host/sandbox's init, so that no package importing it (planc's
// commands, its schemas, the Kubernetes client) is initialised first: the
// shim's usage error comes, and this package's init never runs.
func TestShimSkipsPlancsStart(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(exe, sandbox.ShimCommand, "-no-such-flag").CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() == 0 {
		t.Fatalf("the shim with a bad flag: %v\n%s", err, out)
	}
	if strings.Contains(string(out), startedPast) {
		t.Errorf("the shim ran after the packages importing host/sandbox were initialised:\n%s", out)
	}
	if !strings.Contains(string(out), "-no-such-flag") {
		t.Errorf("not the shim's usage error:\n%s", out)
	}
}
