package testkit

import (
	"os/exec"
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
		gobin, err := exec.LookPath("go")
		if err != nil {
			hookedErr = err
			return
		}
		hookedPath, hookedErr = buildPlancAs(gobin, "planc-hooked", "planctesthooks")
	})
	if hookedErr != nil {
		t.Fatal(hookedErr)
	}
	return hookedPath
}
