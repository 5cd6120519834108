package k8sroost

import (
	"os"
	"testing"

	"github.com/planc/planc/internal/testkit"
)

// TestMain runs the tests, removes the planc binary the control-plane
// tests build, and stops their control plane.
func TestMain(m *testing.M) {
	code := testkit.Main(m)
	stopControlPlane()
	os.Exit(code)
}
