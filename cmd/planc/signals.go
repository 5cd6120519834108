package main

import (
	"context"
	"fmt"
	"os"

	"github.com/planc/planc/internal/interrupt"
)

// withSignals calls fn with SIGINT and SIGTERM wired to it
// (interrupt.Run): the first signal cancels fn's context and is
// acknowledged at once with one line, through notice (a view's note) or,
// when notice is nil, on standard error: "CMD: cancelling WHAT… Ctrl-C
// again to kill at once"; a second closes abort; if fn has not returned
// abortGrace after that, planc exits 3 with one line on standard error:
// "CMD: ended at once; WHAT did not wind down in time".
func withSignals[T any](e *env, abort chan struct{}, cmd, what string, notice func(string), fn func(ctx context.Context) T) T {
	return interrupt.Run(interrupt.Handler{Abort: abort, Grace: abortGrace,
		First: func() {
			msg := "cancelling " + what + "… Ctrl-C again to kill at once"
			if notice != nil {
				notice(msg)
			} else {
				fmt.Fprintf(e.stderr, "%s: %s\n", cmd, msg)
			}
		},
		Stuck: func() {
			fmt.Fprintf(e.stderr, "%s: ended at once; %s did not wind down in time\n", cmd, what)
			os.Exit(exitCanceled)
		},
	}, fn)
}
