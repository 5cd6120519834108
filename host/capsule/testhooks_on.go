//go:build planctesthooks

package capsule

import (
	"io"
	"os"
	"path/filepath"
)

// The test-only hooks of a spawn, in a planc built with -tags
// planctesthooks (testkit.HookedPlancBinary) and never otherwise.
const (
	// EnvTestSpawnPause names a directory with two FIFOs: a child opens
	// "paused" for writing and closes it (the test, reading it, knows the
	// child stands between its parent's check and its own), then reads
	// "go" to its end before it goes on.
	EnvTestSpawnPause = "PLANC_TEST_SPAWN_PAUSE"
	// EnvTestSpawnNoRecheck, set, turns the child's checks of its pins
	// off (and makes it resolve its command by path again): the control
	// that shows what the checks stop.
	EnvTestSpawnNoRecheck = "PLANC_TEST_SPAWN_NORECHECK"
)

// spawnPause waits, when the test asked for it, until the test says go.
func spawnPause() {
	dir := os.Getenv(EnvTestSpawnPause)
	if dir == "" {
		return
	}
	if f, err := os.OpenFile(filepath.Join(dir, "paused"), os.O_WRONLY, 0); err == nil {
		f.Close()
	}
	if f, err := os.Open(filepath.Join(dir, "go")); err == nil {
		io.Copy(io.Discard, f)
		f.Close()
	}
}

// noRecheck reports whether the test turned the child's checks off.
func noRecheck() bool { return os.Getenv(EnvTestSpawnNoRecheck) != "" }
