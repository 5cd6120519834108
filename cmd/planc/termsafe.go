package main

import (
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/planc/planc/internal/termtext"
	"github.com/planc/planc/tracefile"
)

// termSafe returns w as it is when it is not a terminal, so that a kept
// output piped or redirected arrives byte for byte; on a terminal it
// returns a writer that shows every byte a step wrote without letting the
// terminal act on it (safeWriter).
func termSafe(w io.Writer) io.Writer {
	if _, tty := terminal(w); !tty {
		return w
	}
	return &safeWriter{w: w}
}

// safeWriter writes what a step printed to a terminal as text: line feeds
// and tabs as they are; every other control character (escape sequences
// that set the title, write the clipboard or move the cursor, carriage
// returns and backspaces that would hide text), the C1 controls, the
// bidirectional controls and the line and paragraph separators as Go
// escapes (\x1b, \r, \u202e); invalid UTF-8 a byte at a time as \xNN. A
// character cut in two by the writes is held until its end comes.
type safeWriter struct {
	w    io.Writer
	held []byte // the start of a character whose end has not come
	buf  []byte
}

// Write shows p; n is len(p) unless the terminal refused a write.
func (s *safeWriter) Write(p []byte) (int, error) {
	in := p
	if len(s.held) > 0 {
		in = append(s.held, p...)
		s.held = nil
	}
	out := s.buf[:0]
	for len(in) > 0 {
		r, size := utf8.DecodeRune(in)
		switch {
		case r == utf8.RuneError && size <= 1 && !utf8.FullRune(in):
			s.held = append([]byte(nil), in...) // its end comes with the next write
			in = nil
			continue
		case r == utf8.RuneError && size <= 1:
			out = fmt.Appendf(out, `\x%02x`, in[0])
		case r == '\n', r == '\t':
			out = append(out, byte(r))
		case tracefile.UnsafeRune(r):
			q := strconv.QuoteRune(r)
			out = append(out, q[1:len(q)-1]...)
		default:
			out = append(out, in[:size]...)
		}
		in = in[size:]
	}
	s.buf = out
	if _, err := s.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush shows a character left cut at the end, byte by byte.
func (s *safeWriter) Flush() error {
	var out []byte
	for _, b := range s.held {
		out = fmt.Appendf(out, `\x%02x`, b)
	}
	s.held = nil
	if len(out) == 0 {
		return nil
	}
	_, err := s.w.Write(out)
	return err
}

// termJSON returns w as it is when it is not a terminal, so that the
// report piped or redirected is the JSON planc made, byte for byte; on a
// terminal it returns a writer that escapes the C1 controls, the
// bidirectional controls and the line and paragraph separators a plan's
// ids or a step's output put in it as \uXXXX (termtext.EscapeJSON): the
// same JSON, which the terminal shows without acting on.
func termJSON(w io.Writer) io.Writer {
	if _, tty := terminal(w); !tty {
		return w
	}
	return &jsonWriter{w: w}
}

// jsonWriter is termJSON's writer on a terminal. A character cut in two
// by the writes is held until its end comes.
type jsonWriter struct {
	w    io.Writer
	held []byte
}

// Write escapes p; n is len(p) unless the terminal refused a write.
func (j *jsonWriter) Write(p []byte) (int, error) {
	in := append(j.held, p...)
	n := len(in)
	for i := n - 1; i >= 0 && i >= n-utf8.UTFMax; i-- {
		if utf8.RuneStart(in[i]) {
			if !utf8.FullRune(in[i:]) {
				n = i
			}
			break
		}
	}
	j.held = append([]byte(nil), in[n:]...)
	if _, err := j.w.Write(termtext.EscapeJSON(in[:n])); err != nil {
		return 0, err
	}
	return len(p), nil
}
