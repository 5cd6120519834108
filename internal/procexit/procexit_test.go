package procexit

import (
	"errors"
	"syscall"
	"testing"
)

func TestStatus(t *testing.T) {
	for _, tt := range []struct {
		s           Status
		str, clause string
		errNil      bool
	}{
		{Status{}, "exit status 0", "exited with status 0", true},
		{Status{Code: 3}, "exit status 3", "exited with status 3", false},
		{Status{Signal: syscall.SIGKILL}, "killed by signal SIGKILL", "was killed by signal SIGKILL", false},
		{Status{Code: -1, Signal: syscall.SIGTERM}, "killed by signal SIGTERM", "was killed by signal SIGTERM", false},
	} {
		if got := tt.s.String(); got != tt.str {
			t.Errorf("%+v String() = %q, want %q", tt.s, got, tt.str)
		}
		if got := tt.s.Clause(); got != tt.clause {
			t.Errorf("%+v Clause() = %q, want %q", tt.s, got, tt.clause)
		}
		if err := tt.s.Err(); (err == nil) != tt.errNil || err != nil && err.Error() != tt.str {
			t.Errorf("%+v Err() = %v", tt.s, err)
		}
	}
}

func TestWaitOther(t *testing.T) {
	other := errors.New("exec: not started")
	if WaitError(other) != other || WaitClause(other) != "failed: exec: not started" {
		t.Errorf("another error: %v, %q", WaitError(other), WaitClause(other))
	}
	if WaitError(nil) != nil || WaitClause(nil) != "exited with status 0" {
		t.Errorf("nil: %v, %q", WaitError(nil), WaitClause(nil))
	}
}
