package tracefile

import (
	"io"

	"github.com/planc/planc/internal/regfile"
)

// WriteError is a failed write to the writer a view writes to, told apart
// from a failed read of a kept file.
type WriteError struct{ Err error }

func (e *WriteError) Error() string { return e.Err.Error() }

func (e *WriteError) Unwrap() error { return e.Err }

// WriteAttempt writes attempt a's kept output to w, exactly as kept. A
// failed write is a *WriteError; any other error is the kept file's.
func (l *StepLogs) WriteAttempt(w io.Writer, a *LogAttempt) error {
	if a.Empty {
		return nil
	}
	return copyFile(w, l.File(a))
}

// WriteAll writes every attempt of the step (id stepID) to w, each under
// its Heading, its kept output exactly as kept, a newline added where an
// output does not end in one (planc trace logs). A failed write is a
// *WriteError; any other error is a kept file's.
func (l *StepLogs) WriteAll(w io.Writer, stepID string) error {
	lw := &lastByteWriter{w: w, last: '\n'}
	for i := range l.Attempts {
		at := &l.Attempts[i]
		if lw.last != '\n' {
			io.WriteString(lw, "\n")
		}
		if i > 0 {
			io.WriteString(lw, "\n")
		}
		io.WriteString(lw, at.Heading(stepID)+"\n")
		if at.Kept && !at.Empty {
			if err := copyFile(lw, l.File(at)); err != nil {
				return err
			}
		}
	}
	if lw.last != '\n' {
		io.WriteString(lw, "\n")
	}
	if lw.err != nil {
		return &WriteError{lw.err}
	}
	return nil
}

// copyFile writes the file at path to w.
func copyFile(w io.Writer, path string) error {
	f, err := regfile.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		k, rerr := f.Read(buf)
		if k > 0 {
			if _, err := w.Write(buf[:k]); err != nil {
				return &WriteError{err}
			}
		}
		if rerr == io.EOF {
			return nil
		}
		if rerr != nil {
			return rerr
		}
	}
}

// lastByteWriter remembers the last byte written through it, and the
// first error (after which it writes nothing).
type lastByteWriter struct {
	w    io.Writer
	last byte
	err  error
}

func (w *lastByteWriter) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	k, err := w.w.Write(p)
	if k > 0 {
		w.last = p[k-1]
	}
	w.err = err
	return k, err
}
