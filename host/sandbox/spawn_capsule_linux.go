package sandbox

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/planc/planc/host/sandbox/cgroups"
)

// ClearNested removes the cgroups that p's processes made beneath its leaf
// and left behind, deepest first, after killing whatever runs in them: a
// sub-capsule `planc __capsule` killed before it closed its own plan's
// scope leaves that scope inside its leaf, and a leaf with children cannot
// be removed. Call it once p's main process has exited, before Stop. A
// Process started outside a scope has nothing to clear.
func (p *Process) ClearNested() error {
	if p.sys.leaf == "" {
		return nil
	}
	ents, err := os.ReadDir(p.sys.leaf)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	var errs []error
	for _, e := range ents {
		if e.IsDir() {
			errs = append(errs, cgroups.Remove(filepath.Join(p.sys.leaf, e.Name())))
		}
	}
	return errors.Join(errs...)
}
