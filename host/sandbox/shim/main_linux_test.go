package shim

import (
	"os"
	"testing"
)

// TestMain runs the filter check when TestFilterOnKernel re-executes the
// test binary as `__filtercheck DIR`, and otherwise the tests.
func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == "__filtercheck" {
		os.Exit(filterCheck(os.Args[2]))
	}
	os.Exit(m.Run())
}
