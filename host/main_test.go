package host

import (
	"os"
	"testing"

	"github.com/planc/planc/host/shell"
)

// TestMain runs the shim when host/shell re-executes the test binary as
// `/proc/self/exe __shim …` (a capsule's command runs through it, see
// shell.Contain), and otherwise runs the tests.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == shell.ShimCommand {
		os.Exit(shell.ShimMain(os.Args[2:]))
	}
	os.Exit(m.Run())
}
