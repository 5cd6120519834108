//go:build unix

package procexit

import (
	"os/exec"
	"testing"
)

// TestWaitReal: the Wait errors of real processes that exited 3 and were
// killed by SIGKILL.
func TestWaitReal(t *testing.T) {
	err := exec.Command("sh", "-c", "exit 3").Run()
	if got := WaitError(err); got == nil || got.Error() != "exit status 3" || WaitClause(err) != "exited with status 3" {
		t.Errorf("exit 3: %v, %q", got, WaitClause(err))
	}
	err = exec.Command("sh", "-c", "kill -KILL $$").Run()
	if got := WaitError(err); got == nil || got.Error() != "killed by signal SIGKILL" || WaitClause(err) != "was killed by signal SIGKILL" {
		t.Errorf("SIGKILL: %v, %q", got, WaitClause(err))
	}
}
