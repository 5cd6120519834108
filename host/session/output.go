package session

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/planc/planc/tracefile"
)

// OutputLimit is the longest output a step's result carries (semantics
// S20): a longer one is cut to this many bytes and marked, and kept whole
// under the session's outputs/.
const OutputLimit = tracefile.OutputLimit

// CutPoint is tracefile.CutPoint: the length of the longest prefix of s
// of at most limit bytes that ends on a UTF-8 boundary.
func CutPoint(s string, limit int) int { return tracefile.CutPoint(s, limit) }

// CutOutput applies S20 to out: when it is over limit bytes, the whole text
// is written to path and the result is tracefile.CutText's, the first
// bytes up to limit (on a UTF-8 boundary) followed by "\n[cut: N bytes in
// all; whole text at SHOWN]". An output within the limit is returned as it
// is.
func CutOutput(out string, limit int, path, shown string) (string, error) {
	if len(out) <= limit {
		return out, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		return "", err
	}
	return tracefile.CutText(out, limit, shown), nil
}

// CutMark is out cut at limit bytes on a UTF-8 boundary and marked with
// the size of the whole text, total bytes, and where it is kept, shown.
func CutMark(out string, limit int, total int64, shown string) string {
	return out[:CutPoint(out, limit)] + "\n[cut: " + strconv.FormatInt(total, 10) + " bytes in all; whole text at " + shown + "]"
}

// OutputName is the file name of a step's whole output: the step id, with
// every byte outside [A-Za-z0-9._-] replaced by "_" (step ids may hold any
// character, S4), and the step's index added when that changed the id, so
// two ids never share a file. "." and ".." get the index too.
func OutputName(stepID string, index int) string {
	var b strings.Builder
	changed := stepID == "" || stepID == "." || stepID == ".."
	for i := 0; i < len(stepID); i++ {
		c := stepID[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' {
			b.WriteByte(c)
		} else {
			b.WriteByte('_')
			changed = true
		}
	}
	name := b.String()
	if changed || len(name) > 200 {
		name = truncate(name, 200) + "-" + strconv.Itoa(index)
	}
	return name + ".txt"
}

// truncate returns the first n bytes of s, or s when it is shorter.
func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

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
