package session

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/planc/planc/internal/sessionfmt"
)

// kept is what a task keeps of its steps' outputs (S24): the directory
// outputs/plan-<n>/, made once, and the plan's output index, opened once.
type kept struct {
	once  sync.Once
	err   error // why the directory could not be made
	mu    sync.Mutex
	index *os.File // nil when it could not be opened: it is only a shortcut
	buf   []byte
}

// keeper returns the task's kept outputs, making the directory and
// opening the index on first use.
func (t *Task) keeper() *kept {
	t.keptOnce.Do(func() {
		k := &kept{}
		dir := filepath.Join(t.Session.Dir, filepath.FromSlash(sessionfmt.OutputDir(t.Plan.N)))
		if k.err = os.MkdirAll(dir, 0o755); k.err == nil {
			k.index = openIndex(filepath.Join(t.Session.Dir, filepath.FromSlash(sessionfmt.OutputIndexPath(t.Plan.N))))
		}
		t.kept = k
	})
	return t.kept
}

// openIndex opens the output index at path for appending, after a
// newline when an earlier writer died in the middle of its line; nil when
// it cannot be opened.
func openIndex(path string) *os.File {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil
	}
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, fi.Size()-1); err != nil || last[0] != '\n' {
			f.Write([]byte{'\n'})
		}
	}
	return f
}

// OutputFile returns where the whole output of one attempt of a step of
// the task's plan is kept: the session directory joined with
// sessionfmt.OutputPath.
func (t *Task) OutputFile(stepID string, attempt int) string {
	return filepath.Join(t.Session.Dir, filepath.FromSlash(sessionfmt.OutputPath(t.Plan.N, stepID, attempt)))
}

// Keep keeps out, the whole output of one dispatched attempt of a step,
// at OutputFile (an empty output gets no file: its index line records 0
// bytes), adds its line to the plan's output
// index, and returns the text the step's result carries (S20): out
// itself, or when it is over OutputLimit its first bytes and a mark naming
// the kept file (ShownPath). It is called before the dispatch returns to
// the VM, so that the file exists before the attempt's plan_step line. A
// failure to keep the output fails the attempt: err is then joined with
// why. It is Sink for an output already whole in memory.
func (t *Task) Keep(stepID string, attempt int, out string, err error) (string, error) {
	s := t.Sink(stepID, attempt)
	s.WriteString(out)
	return s.Close(err)
}

// KeepFile is Keep for an output a child wrote to the file src (a
// sub-capsule's answer): the file is copied to OutputFile, and its first
// bytes make the text. A missing src is an empty output, kept as such,
// and an error.
func (t *Task) KeepFile(stepID string, attempt int, src string) (string, error) {
	s := t.Sink(stepID, attempt)
	if s.err != nil {
		return "", keepError(s.err)
	}
	in, err := os.Open(src)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			err = fs.ErrNotExist
		}
		return s.Close(fmt.Errorf("%s cannot be read: %w", filepath.Base(src), err))
	}
	defer in.Close()
	var rerr error
	if _, err := io.Copy(s, in); err != nil { // s never fails: the error is src's
		rerr = fmt.Errorf("%s cannot be read: %w", filepath.Base(src), err)
	}
	return s.Close(rerr)
}

// Sink keeps one dispatched attempt's output as it arrives (S20, S24):
// every byte goes straight to the attempt's kept file (OutputFile), and
// only the first OutputLimit+1 bytes stay in memory, all that the step's
// result needs; so a step that prints a gigabyte costs planc 64 KiB. Its
// writes never fail, so that a writer feeding it from a step's pipe keeps
// draining the pipe: a file that cannot be written fails the attempt
// instead, when Close says so. The file is created at the first byte: an
// empty output has none (most steps print nothing, and a file's creation
// was the most of what keeping their output cost). A Sink is used by one
// goroutine at a time.
type Sink struct {
	t       *Task
	stepID  string
	attempt int
	path    string
	f       *os.File // nil until the first byte, and once writing failed
	head    []byte   // the first sessionfmt.OutputLimit+1 bytes
	total   int64
	err     error // why the output cannot be kept
}

// Sink starts keeping the output of one dispatched attempt of a step at
// OutputFile, replacing any file there (at the first byte, or at Close
// when there is none). Close it.
func (t *Task) Sink(stepID string, attempt int) *Sink {
	s := &Sink{t: t, stepID: stepID, attempt: attempt, path: t.OutputFile(stepID, attempt)}
	s.err = t.keeper().err
	return s
}

// open creates the kept file at the first byte of output.
func (s *Sink) open() {
	if s.f == nil && s.err == nil {
		s.f, s.err = os.OpenFile(s.path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	}
}

// Write keeps p; it always returns len(p), nil.
func (s *Sink) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if n := min(sessionfmt.OutputLimit+1-len(s.head), len(p)); n > 0 {
		s.head = append(s.head, p[:n]...)
	}
	s.total += int64(len(p))
	s.open()
	if s.f != nil {
		if _, err := s.f.Write(p); err != nil {
			s.fail(err)
		}
	}
	return len(p), nil
}

// WriteString is Write for a string, without copying it whole.
func (s *Sink) WriteString(p string) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if n := min(sessionfmt.OutputLimit+1-len(s.head), len(p)); n > 0 {
		s.head = append(s.head, p[:n]...)
	}
	s.total += int64(len(p))
	s.open()
	if s.f != nil {
		if _, err := s.f.WriteString(p); err != nil {
			s.fail(err)
		}
	}
	return len(p), nil
}

// fail records why the output cannot be kept and stops writing it.
func (s *Sink) fail(err error) {
	s.f.Close()
	s.f, s.err = nil, err
}

// Close ends the attempt's output: it closes the kept file (an empty
// output has none: a file an earlier writer left at its path goes), adds the
// attempt's line to the plan's output index, and returns the text the
// step's result carries, as Keep does, with err, the attempt's own error,
// joined with why the output could not be kept, if it could not.
func (s *Sink) Close(err error) (string, error) {
	if s.f != nil {
		if cerr := s.f.Close(); cerr != nil {
			s.err = cerr
		}
		s.f = nil
	} else if s.err == nil && s.total == 0 {
		if rerr := removeFile(s.path); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			s.err = rerr
		}
	}
	head := string(s.head)
	if s.err != nil {
		return head[:sessionfmt.CutPoint(head, sessionfmt.OutputLimit)], errors.Join(err, keepError(s.err))
	}
	text, shown := head, "" // only a cut output's mark names its file
	if s.total > sessionfmt.OutputLimit {
		shown = ShownPath(s.t.WorkDir, s.path)
		text = sessionfmt.CutPrefix(head, sessionfmt.OutputLimit, s.total, shown)
	}
	s.t.keeper().record(sessionfmt.NewIndexRecord(s.stepID, s.attempt, s.total, text, shown))
	return text, err
}

// WholeOutput returns the whole output of a step's attempt whose result
// carried text: what references and conditions read (S20). A text within
// OutputLimit is the whole output itself; a longer one was cut, and the
// whole output is read back from the attempt's kept file, whose first
// bytes must be the text's. A kept output over ReferenceLimit is not read:
// the error names its size and the file, and says to read it from there.
// The same holds for a redrive's reused step, whose kept file is the
// earlier run's.
func (t *Task) WholeOutput(stepID string, attempt int, text string) (string, error) {
	if len(text) <= sessionfmt.OutputLimit {
		return text, nil
	}
	path := t.OutputFile(stepID, attempt)
	shown := ShownPath(t.WorkDir, path)
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("the whole output of step %s cannot be read: %w", strconv.Quote(stepID), err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("the whole output of step %s cannot be read: %w", strconv.Quote(stepID), err)
	}
	if fi.Size() > ReferenceLimit {
		return "", tooLong(stepID, fi.Size(), shown)
	}
	var b strings.Builder
	b.Grow(int(fi.Size()))
	if _, err := io.Copy(&b, io.LimitReader(f, ReferenceLimit+1)); err != nil {
		return "", fmt.Errorf("the whole output of step %s cannot be read from %s: %w", strconv.Quote(stepID), shown, err)
	}
	whole := b.String()
	if len(whole) > ReferenceLimit { // it grew since Stat
		return "", tooLong(stepID, int64(len(whole)), shown)
	}
	if len(whole) <= sessionfmt.OutputLimit || !strings.HasPrefix(text, whole[:sessionfmt.CutPoint(whole, sessionfmt.OutputLimit)]) {
		return "", fmt.Errorf("the whole output of step %s is no longer what %s holds: the file was changed", strconv.Quote(stepID), shown)
	}
	return whole, nil
}

// tooLong is the error of a reference to an output of size bytes, over
// ReferenceLimit, kept at shown.
func tooLong(stepID string, size int64, shown string) error {
	return fmt.Errorf("the output of step %s is %d bytes, over the 16 MiB (%d bytes) a reference or a condition reads; it is kept whole at %s: read it from there with a shell step (read-file, too, reads at most 16 MiB)", strconv.Quote(stepID), size, ReferenceLimit, shown)
}

// keepError says that an output could not be kept.
func keepError(err error) error {
	return fmt.Errorf("its output could not be kept in the session directory: %w", err)
}

// record appends r to the output index, when ok; a failure is let go (the
// index is only a shortcut to the kept files).
func (k *kept) record(r sessionfmt.IndexRecord, ok bool) {
	if k.index == nil || !ok {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.buf = sessionfmt.AppendIndexRecord(k.buf[:0], r)
	k.index.Write(k.buf) // one write(2) on an O_APPEND file: whole lines
}

// close closes the output index.
func (k *kept) close() {
	if k == nil || k.index == nil {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.index.Close()
	k.index = nil
}

// removeFile is os.Remove for a path that is a file when anything: an
// unlink, which fails with ENOENT in the common case (no earlier file),
// where os.Remove would try rmdir as well, a second failing call for
// every step with an empty output. Anything else there is os.Remove's.
func removeFile(path string) error {
	err := syscall.Unlink(path)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, syscall.ENOENT):
		return &fs.PathError{Op: "remove", Path: path, Err: err}
	}
	return os.Remove(path)
}
