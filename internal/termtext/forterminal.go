package termtext

import "io"

// ForTerminal returns w as it is when it is not a terminal, so that a kept
// output piped or redirected arrives byte for byte; on a terminal it
// returns a SafeWriter, which shows every byte a step wrote without
// letting the terminal act on it (Flush it when done).
func ForTerminal(w io.Writer) io.Writer {
	if _, tty := Terminal(w); !tty {
		return w
	}
	return NewSafeWriter(w)
}

// JSONForTerminal returns w as it is when it is not a terminal, so that
// JSON piped or redirected is the JSON made, byte for byte; on a terminal
// it returns a JSONWriter, which escapes the C1 controls, the
// bidirectional controls and the line and paragraph separators a plan's
// ids or a step's output put in it as \uXXXX: the same JSON, which the
// terminal shows without acting on.
func JSONForTerminal(w io.Writer) io.Writer {
	if _, tty := Terminal(w); !tty {
		return w
	}
	return NewJSONWriter(w)
}
