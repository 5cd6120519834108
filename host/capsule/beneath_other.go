//go:build !linux

package capsule

import (
	"os"
	"path/filepath"
)

// openDir opens the roost directory dir. Elsewhere than Linux steps are
// not contained, and the roost is read by its path.
func openDir(dir string) (*os.File, error) { return os.Open(dir) }

// openBeneath opens rel beneath root's path.
func openBeneath(root *os.File, rel, name string) (*os.File, error) {
	return os.Open(filepath.Join(root.Name(), rel))
}

// dirPath is the path of the opened directory f, its links resolved.
func dirPath(f *os.File) (string, error) { return filepath.EvalSymlinks(f.Name()) }
