package testkit

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	hookedOnce sync.Once
	hookedPath string
	hookedErr  error
)

// HookedPlancBinary returns a planc built with -tags planctesthooks, the
// test-only hooks of a spawn compiled in (host/capsule's testhooks_on.go:
// PLANC_TEST_SPAWN_PAUSE and PLANC_TEST_SPAWN_NORECHECK), once per test
// binary, beside PlancBinary's (Main removes both). planc as built for
// use has no such hooks. The test is skipped where there is no go
// command.
func HookedPlancBinary(t testing.TB) string {
	t.Helper()
	PlancBinary(t) // makes the directory Main removes
	hookedOnce.Do(func() {
		bin := filepath.Join(binDir, "planc-hooked")
		out, err := exec.Command("go", "build", "-tags", "planctesthooks", "-o", bin, "github.com/planc/planc/cmd/planc").CombinedOutput()
		if err != nil {
			hookedErr = fmt.Errorf("go build -tags planctesthooks ./cmd/planc: %v\n%s", err, out)
			return
		}
		hookedPath = bin
	})
	if hookedErr != nil {
		t.Fatal(hookedErr)
	}
	return hookedPath
}
