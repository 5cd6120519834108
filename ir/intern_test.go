package ir

import (
	"testing"
	"unsafe"
)

// TestInternStatusWords: a condition's status-word constant is the Go
// literal itself, whose bytes the VM's status text shares (vm's status
// names are literals too), so Eval compares them by pointer; any other
// constant is kept as it is.
func TestInternStatusWords(t *testing.T) {
	for _, w := range []string{"success", "failed", "skipped"} {
		parsed := string([]byte(w)) // as a plan's source holds it: other bytes
		if got := intern(parsed); got != w || unsafe.StringData(got) != unsafe.StringData(w) {
			t.Errorf("intern(%q) is not the literal", w)
		}
	}
	other := string([]byte("fail"))
	if got := intern(other); unsafe.StringData(got) != unsafe.StringData(other) {
		t.Error("intern replaced a constant that is no status word")
	}
}
