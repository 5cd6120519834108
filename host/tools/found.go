package tools

import (
	"sync"

	"github.com/planc/planc/host/sandbox"
)

// BinaryFinder returns check.Capabilities.Found for a run in dir ("" is
// the current directory): whether a shell step's first word resolves now
// as a run resolves it (sandbox.Resolve: PATH, or a path from dir). Each
// word is looked up once.
func BinaryFinder(dir string) func(bin string) bool {
	var mu sync.Mutex
	seen := map[string]bool{}
	return func(bin string) bool {
		mu.Lock()
		defer mu.Unlock()
		found, ok := seen[bin]
		if !ok {
			_, err := sandbox.Resolve(bin, dir)
			found = err == nil
			seen[bin] = found
		}
		return found
	}
}
