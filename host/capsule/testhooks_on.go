//go:build planctesthooks

package capsule

import (
	"io"
	"os"
	"path/filepath"
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
