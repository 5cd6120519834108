// Package golden holds planc's golden-file tests across the stages: plan in,
// diagnostics / IR text / report out. `go test ./golden -update` rewrites the
// expected files (testkit.Update); review the diff before committing.
package golden

import (
	"os"
	"testing"

	"github.com/planc/planc/internal/testkit"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }
