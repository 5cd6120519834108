package termtext

import (
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"
)

// SafeWriter writes what a step printed to a terminal as text: line feeds
// and tabs as they are; every other Unsafe character (escape sequences
// that set the title, write the clipboard or move the cursor, carriage
// returns and backspaces that would hide text, the C1 controls, the
// bidirectional controls, the line and paragraph separators) as a Go
// escape (\x1b, \r, \u202e); invalid UTF-8 a byte at a time as \xNN. A
// character cut in two by the writes is held until its end comes; Flush
// shows one left cut at the end.
type SafeWriter struct {
	w    io.Writer
	held []byte // the start of a character whose end has not come
	buf  []byte
}

// NewSafeWriter returns a SafeWriter writing to w.
func NewSafeWriter(w io.Writer) *SafeWriter { return &SafeWriter{w: w} }

// Write shows p; n is len(p) unless w refused a write.
func (s *SafeWriter) Write(p []byte) (int, error) {
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
		case Unsafe(r):
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
func (s *SafeWriter) Flush() error {
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

// JSONWriter writes JSON text to a terminal with EscapeJSON: the same
// JSON, which the terminal shows without acting on. A character cut in
// two by the writes is held until its end comes.
type JSONWriter struct {
	w    io.Writer
	held []byte
}

// NewJSONWriter returns a JSONWriter writing to w.
func NewJSONWriter(w io.Writer) *JSONWriter { return &JSONWriter{w: w} }

// Write escapes p; n is len(p) unless w refused a write.
func (j *JSONWriter) Write(p []byte) (int, error) {
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
	if _, err := j.w.Write(EscapeJSON(in[:n])); err != nil {
		return 0, err
	}
	return len(p), nil
}
