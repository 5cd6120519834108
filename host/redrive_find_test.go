package host

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFindRedrive: the session a redrive names (a directory, an id under
// the work directory's sessions, the newest there) and the plan, or an
// error saying what to name.
func TestFindRedrive(t *testing.T) {
	wd := t.TempDir()
	if _, _, err := FindRedrive(wd, "", 0); err == nil || !strings.HasPrefix(err.Error(), "nothing to resume: ") || !strings.HasSuffix(err.Error(), "; name the session") {
		t.Errorf("no sessions: %v", err)
	}
	byID := filepath.Join(wd, ".planc", "sessions", "s1")
	if err := os.MkdirAll(byID, 0o755); err != nil {
		t.Fatal(err)
	}
	if dir, n, err := FindRedrive(wd, "s1", 2); err != nil || dir != byID || n != 2 {
		t.Errorf("by id: %q %d %v, want %q 2", dir, n, err, byID)
	}
	if dir, n, err := FindRedrive(wd, byID, 1); err != nil || dir != byID || n != 1 {
		t.Errorf("by path: %q %d %v", dir, n, err)
	}
	if _, _, err := FindRedrive(wd, byID, 0); err == nil || !strings.Contains(err.Error(), "no session at "+byID) {
		t.Errorf("a directory without a session, its last plan: %v", err)
	}
	if _, _, err := FindRedrive(wd, "nope", 1); err == nil || err.Error() != "no session at nope" {
		t.Errorf("an unknown id: %v", err)
	}
	file := filepath.Join(wd, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := FindRedrive(wd, file, 1); err == nil || err.Error() != file+" is not a session directory" {
		t.Errorf("a file: %v", err)
	}
}
