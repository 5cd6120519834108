package cgroups

import (
	"fmt"
	"path/filepath"
)

// RemoveScope kills whatever still runs in the scope called name under
// this process's cgroup v2 — one a planc that died left behind, whose
// steps may still run — and removes it with its leaves. A scope that is
// not there, or no cgroup v2 at all, is no error. A redrive calls it for
// the scopes of its plan's earlier runs before it opens its own (S27).
func RemoveScope(name string) error {
	if name == "" || name == "." || name == ".." || filepath.Base(name) != name {
		return fmt.Errorf("bad scope name %q", name)
	}
	dir, err := OwnDir()
	if err != nil {
		return nil // no cgroup v2: no scope was made
	}
	return Remove(filepath.Join(dir, name))
}
