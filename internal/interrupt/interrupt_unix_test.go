//go:build unix

package interrupt

import (
	"context"
	"os"
	"syscall"
	"testing"
)

// TestRunSIGTERM: a real SIGTERM to the process cancels the work's
// context and does not kill the process.
func TestRunSIGTERM(t *testing.T) {
	first := make(chan struct{})
	Run(Handler{First: func() { close(first) }}, func(ctx context.Context) int {
		if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		<-ctx.Done()
		<-first
		return 0
	})
}
