package main

import (
	"io"

	"github.com/planc/planc/internal/termtext"
)

// termSafe returns w as it is when it is not a terminal, so that a kept
// output piped or redirected arrives byte for byte; on a terminal it
// returns a writer that shows every byte a step wrote without letting the
// terminal act on it (termtext.SafeWriter).
func termSafe(w io.Writer) io.Writer {
	if _, tty := termtext.Terminal(w); !tty {
		return w
	}
	return termtext.NewSafeWriter(w)
}

// termJSON returns w as it is when it is not a terminal, so that the
// report piped or redirected is the JSON planc made, byte for byte; on a
// terminal it returns a writer that escapes the C1 controls, the
// bidirectional controls and the line and paragraph separators a plan's
// ids or a step's output put in it as \uXXXX (termtext.JSONWriter): the
// same JSON, which the terminal shows without acting on.
func termJSON(w io.Writer) io.Writer {
	if _, tty := termtext.Terminal(w); !tty {
		return w
	}
	return termtext.NewJSONWriter(w)
}
