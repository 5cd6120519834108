package capsule

import (
	"os"
	"testing"

	"github.com/planc/planc/internal/testkit"
)

// TestMain runs the shim when host/sandbox re-executes the test binary as
// its shim (a capsule's command runs through it, see shell.Contain), and
// otherwise runs the tests.
func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }
