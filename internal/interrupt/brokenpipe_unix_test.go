//go:build unix

package interrupt

import (
	"os"
	"testing"
)

// TestSurviveBrokenPipe: once SurviveBrokenPipe ran, a write to a pipe
// whose reader is gone fails with EPIPE, which BrokenPipe recognises, and
// the process lives on.
func TestSurviveBrokenPipe(t *testing.T) {
	SurviveBrokenPipe()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	defer w.Close()
	_, err = w.Write([]byte("x"))
	if !BrokenPipe(err) {
		t.Errorf("a write to a pipe nobody reads: %v, want EPIPE", err)
	}
	if BrokenPipe(os.ErrClosed) {
		t.Error("BrokenPipe(os.ErrClosed) = true")
	}
}
