package testkit

import (
	"os"
	"syscall"
)

// StopPlanc is an exec.Cmd's Cancel for a planc that may hang: SIGTERM
// and then SIGINT, the first cancelling its plans and the second killing
// their processes at once (S22), so that not even a failing test leaves a
// process or a scope behind. Two different signals, which neither the
// kernel nor Go's runtime merges as it may two SIGINTs sent back to back.
func StopPlanc(p *os.Process) error {
	p.Signal(syscall.SIGTERM)
	return p.Signal(os.Interrupt)
}
