package session

import (
	"path/filepath"
	"strings"

	"github.com/planc/planc/internal/sessionfmt"
)

// OutputLimit is the longest output a step's result carries (semantics
// S20): a longer one is cut to this many bytes and marked, and kept whole
// under the session's outputs/.
const OutputLimit = sessionfmt.OutputLimit

// ReferenceLimit is the longest output a reference or a condition reads
// (S20): 16 MiB, the longest plan text. A step whose reference names a
// longer output fails, and the error names the kept file.
const ReferenceLimit = 16 << 20

// CutPoint is sessionfmt.CutPoint: the length of the longest prefix of s
// of at most limit bytes that ends on a UTF-8 boundary.
func CutPoint(s string, limit int) int { return sessionfmt.CutPoint(s, limit) }

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
