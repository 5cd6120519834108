package trust

import (
	"strings"
	"testing"
)

// TestRecordUserCheckFound: a found manifest is refused until recorded,
// accepted as recorded, and refused again once changed, each refusal
// saying the fix.
func TestRecordUserCheckFound(t *testing.T) {
	t.Setenv(EnvDir, t.TempDir())
	path := t.TempDir() + "/capsule.json"
	err := CheckFound(path, []byte("a"))
	if err == nil || !strings.Contains(err.Error(), "is not trusted") || !strings.Contains(err.Error(), `run "planc trust `+path+`"`) {
		t.Errorf("untrusted: %v", err)
	}
	if err := RecordUser(path, []byte("a")); err != nil {
		t.Fatal(err)
	}
	if err := CheckFound(path, []byte("a")); err != nil {
		t.Errorf("trusted: %v", err)
	}
	err = CheckFound(path, []byte("b"))
	if err == nil || !strings.Contains(err.Error(), "has changed since you trusted it") {
		t.Errorf("changed: %v", err)
	}
}
