package shell

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
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
			errs = append(errs, clearTree(filepath.Join(p.sys.leaf, e.Name())))
		}
	}
	return errors.Join(errs...)
}

// clearTree kills everything in the cgroup dir and its descendants and
// removes them all, children first.
func clearTree(dir string) error {
	if err := killCgroup(dir); err != nil {
		return err
	}
	if err := waitEmpty(dir); err != nil {
		return err
	}
	ents, _ := os.ReadDir(dir)
	var errs []error
	for _, e := range ents {
		if e.IsDir() {
			errs = append(errs, clearTree(filepath.Join(dir, e.Name())))
		}
	}
	if err := unix.Rmdir(dir); err != nil && err != unix.ENOENT {
		errs = append(errs, &os.PathError{Op: "rmdir", Path: dir, Err: err})
	}
	return errors.Join(errs...)
}
