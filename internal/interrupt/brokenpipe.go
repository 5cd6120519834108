package interrupt

import (
	"errors"
	"os"
	"os/signal"
	"syscall"
)

// A reader of planc run's standard output or error that goes away (`planc
// run --progress PLAN 2>&1 | head -5`) ends what planc shows it, never the
// run: the plan goes on, its trace, report and kept outputs are written
// whole, and the exit status is the plan's.

// SurviveBrokenPipe makes a write to a closed pipe on standard output or
// error fail with EPIPE instead of killing the process with SIGPIPE (the
// Go runtime's default for those descriptors). It asks for the signal
// rather than ignoring it, so the processes that steps start get SIGPIPE's
// default action as usual.
func SurviveBrokenPipe() {
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
}

// BrokenPipe reports whether err is a write to a pipe nobody reads.
func BrokenPipe(err error) bool {
	return errors.Is(err, syscall.EPIPE)
}
