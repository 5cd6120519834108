package shim

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// bindAncestors binds every directory above each protected path in ro
// (its symbolic links followed, up to but not including /) onto itself,
// recursively and as writable as it was. A directory that is a mount
// point in the step's mount namespace cannot be renamed, renamed over or
// removed (EBUSY): a step cannot move a protected path's directory aside
// and put another file at the protected path, nor move the package
// directory of an allowed command away and plant its own file in its
// place. Everything in those directories stays as writable as before.
// The binds are made shallowest first, before the read-only binds, so
// that each copies the mounts beneath it.
//
// A process whose working directory lies under a directory bound here
// still stands in the mount beneath the bind, where the read-only binds
// are not: it must change to its directory again, by path (rechdir).
func bindAncestors(ro []string) error {
	var dirs []string
	for _, p := range ro {
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			continue // nothing there to protect: bindReadOnly skips it too
		}
		for d := filepath.Dir(real); d != "/" && d != "." && strings.HasPrefix(d, "/"); d = filepath.Dir(d) {
			dirs = append(dirs, d)
		}
	}
	slices.SortFunc(dirs, func(a, b string) int {
		if c := strings.Count(a, "/") - strings.Count(b, "/"); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	for _, d := range slices.Compact(dirs) {
		if err := unix.Mount(d, d, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("bind-mounting %s, a directory above a protected path: %w", d, err)
		}
	}
	return nil
}

// rechdir changes to wd again, by its path: through the mounts made since
// the process entered it.
func rechdir(wd string) error {
	if wd == "" {
		return nil
	}
	if err := unix.Chdir(wd); err != nil {
		return fmt.Errorf("changing to %s again through the protecting mounts: %w", wd, err)
	}
	return nil
}
