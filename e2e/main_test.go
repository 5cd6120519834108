package e2e

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"testing"

	"github.com/planc/planc/internal/testkit"
)

// TestMain builds planc once, before any test, and lets more tests run at
// once than go test's default of one per core: the tests here mostly wait
// on the processes they start (planc, its steps, its sub-capsules), so
// that four per core keep the cores busy. An explicit -test.parallel wins.
func TestMain(m *testing.M) {
	if !testkit.Reexecuted() {
		flag.Parse()
		given := false
		flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
		if !given {
			flag.Set("test.parallel", fmt.Sprint(4*runtime.GOMAXPROCS(0)))
		}
		testkit.BuildPlanc() // should it fail, each test says why (PlancBinary)
	}
	os.Exit(testkit.Main(m))
}
