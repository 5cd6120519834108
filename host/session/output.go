package session

import (
	"path/filepath"
	"strings"
)

// ReferenceLimit is the longest output a reference or a condition reads
// (S20): 16 MiB, the longest plan text. A step whose reference names a
// longer output fails, and the error names the kept file.
const ReferenceLimit = 16 << 20

// ShownPath is how a cut output's mark names the file holding the whole
// text: relative to the working directory when the file lies under it (a
// later step, running there, can open it so), absolute otherwise.
func ShownPath(workDir, path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	if rel, err := filepath.Rel(workDir, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
		return filepath.ToSlash(rel)
	}
	return abs
}
