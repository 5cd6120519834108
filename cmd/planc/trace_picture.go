package main

import (
	"bytes"
	"fmt"
	"os"

	"github.com/planc/planc/tracefile/traceview"
)

// tracePicture implements planc trace graph and planc trace html.
func tracePicture(e *env, c *command, a traceArgs) int {
	if len(a.pos) > 1 {
		return e.usageError(c, "give at most one trace file or session directory")
	}
	s, n, status, ok := openTraceSession(e, a, a.pos)
	if !ok {
		return status
	}
	var out bytes.Buffer
	var err error
	if a.view == "graph" {
		err = traceview.WriteGraph(&out, s, n, a.format)
	} else {
		err = traceview.WriteHTML(&out, s, n)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "planc trace: %v\n", err)
		return exitUsage
	}
	if a.out != "" {
		if err := os.WriteFile(a.out, out.Bytes(), 0o644); err != nil {
			fmt.Fprintf(e.stderr, "planc trace: %v\n", err)
			return exitFail
		}
		return exitOK
	}
	if _, err := e.stdout.Write(out.Bytes()); err != nil {
		return e.writeFailed(err)
	}
	return exitOK
}
