package golden

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planc/planc/check"
	"github.com/planc/planc/internal/testkit"
	"github.com/planc/planc/ir"
)

// TestIRGolden: every plan check accepts lowers to the program text in
// testdata/ir/<name>.ir (go test ./golden -update rewrites them), and
// lowering it twice gives the same text (the dump is stable).
func TestIRGolden(t *testing.T) {
	caps := goldenCaps(t)
	files, _ := filepath.Glob("testdata/check/ok/*.json")
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			plan, ds := check.Load(src, caps)
			if len(ds) > 0 {
				t.Fatalf("ok plan has diagnostics: %v", ds)
			}
			prog, err := ir.Lower(plan)
			if err != nil {
				t.Fatal(err)
			}
			got := prog.String()
			again, _ := ir.Lower(plan)
			if again.String() != got {
				t.Fatal("dump is not stable across lowerings")
			}
			out := filepath.Join("testdata/ir", strings.TrimSuffix(filepath.Base(f), ".json")+".ir")
			testkit.GoldenFile(t, out, got, "IR")
		})
	}
}
