//go:build !linux

package capsule

import "os"

// selfExecutable is the planc a sub-capsule runs: elsewhere than Linux,
// whatever planc's path holds when the sub-capsule starts (steps are not
// contained there).
func selfExecutable() (string, error) { return os.Executable() }
