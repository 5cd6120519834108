package termtext

import (
	"io"
	"os"

	"golang.org/x/term"
)

// Terminal reports whether w is a terminal, and its descriptor: what
// decides whether planc's writers escape what they show (SafeWriter,
// JSONWriter) and which progress view a run gets.
func Terminal(w io.Writer) (int, bool) {
	f, ok := w.(*os.File)
	if !ok {
		return 0, false
	}
	fd := int(f.Fd())
	return fd, term.IsTerminal(fd)
}
