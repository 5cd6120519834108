package termtext

import (
	"bytes"
	"os"
	"testing"
)

// TestForTerminalNotATerminal: a writer that is not a terminal (a buffer,
// a pipe) is returned as it is, so that what is written arrives byte for
// byte.
func TestForTerminalNotATerminal(t *testing.T) {
	var buf bytes.Buffer
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for _, out := range []interface{ Write([]byte) (int, error) }{&buf, w} {
		if got := ForTerminal(out); got != out {
			t.Errorf("ForTerminal(%T) = %T, want the writer itself", out, got)
		}
		if got := JSONForTerminal(out); got != out {
			t.Errorf("JSONForTerminal(%T) = %T, want the writer itself", out, got)
		}
	}
}
