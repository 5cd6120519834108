package session

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/planc/planc/tracefile"
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
		dir := filepath.Join(t.Session.Dir, filepath.FromSlash(tracefile.OutputDir(t.Plan.N)))
		if k.err = os.MkdirAll(dir, 0o755); k.err == nil {
			k.index = openIndex(filepath.Join(t.Session.Dir, filepath.FromSlash(tracefile.OutputIndexPath(t.Plan.N))))
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
// tracefile.OutputPath.
func (t *Task) OutputFile(stepID string, attempt int) string {
	return filepath.Join(t.Session.Dir, filepath.FromSlash(tracefile.OutputPath(t.Plan.N, stepID, attempt)))
}

// Keep keeps out, the whole output of one dispatched attempt of a step,
// at OutputFile (an empty output too), adds its line to the plan's output
// index, and returns the text the step's result carries (S20): out
// itself, or when it is over OutputLimit its first bytes and a mark naming
// the kept file (ShownPath). It is called before the dispatch returns to
// the VM, so that the file exists before the attempt's plan_step line. A
// failure to keep the output fails the attempt: err is then joined with
// why.
func (t *Task) Keep(stepID string, attempt int, out string, err error) (string, error) {
	path := t.OutputFile(stepID, attempt)
	k := t.keeper()
	werr := k.err
	if werr == nil {
		werr = writeFile(path, out)
	}
	if werr != nil {
		return out[:CutPoint(out, OutputLimit)], errors.Join(err, keepError(werr))
	}
	shown := ShownPath(t.WorkDir, path)
	text := tracefile.CutText(out, OutputLimit, shown)
	k.record(tracefile.NewIndexRecord(stepID, attempt, int64(len(out)), text, shown))
	return text, err
}

// KeepFile is Keep for an output a child wrote to the file src (a
// sub-capsule's answer): the file is copied to OutputFile, and its first
// bytes make the text. A missing src is an empty output, kept as such,
// and an error.
func (t *Task) KeepFile(stepID string, attempt int, src string) (string, error) {
	path := t.OutputFile(stepID, attempt)
	k := t.keeper()
	if k.err != nil {
		return "", keepError(k.err)
	}
	prefix, total, rerr, werr := copyFile(path, src)
	if werr != nil {
		return "", errors.Join(rerr, keepError(werr))
	}
	shown := ShownPath(t.WorkDir, path)
	text := prefix
	if total > OutputLimit {
		text = tracefile.CutPrefix(prefix, OutputLimit, total, shown)
	}
	k.record(tracefile.NewIndexRecord(stepID, attempt, total, text, shown))
	return text, rerr
}

// keepError says that an output could not be kept.
func keepError(err error) error {
	return fmt.Errorf("its output could not be kept in the session directory: %w", err)
}

// record appends r to the output index, when ok; a failure is let go (the
// index is only a shortcut to the kept files).
func (k *kept) record(r tracefile.IndexRecord, ok bool) {
	if k.index == nil || !ok {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.buf = tracefile.AppendIndexRecord(k.buf[:0], r)
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

// writeFile writes s to a new file at path (replacing any).
func writeFile(path, s string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(s)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// copyFile copies src to a new file at dst and returns the first
// OutputLimit+1 bytes and the length of what it copied. rerr is why src
// could not be read (a missing src copies nothing); werr why dst could
// not be written.
func copyFile(dst, src string) (prefix string, total int64, rerr, werr error) {
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return "", 0, nil, err
	}
	defer func() {
		if cerr := out.Close(); werr == nil {
			werr = cerr
		}
	}()
	in, err := os.Open(src)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			err = fs.ErrNotExist
		}
		return "", 0, fmt.Errorf("%s cannot be read: %w", filepath.Base(src), err), nil
	}
	defer in.Close()
	var head strings.Builder
	w := &headWriter{w: out, head: &head, max: OutputLimit + 1}
	total, err = io.Copy(w, in)
	if w.err != nil {
		return head.String(), total, nil, w.err
	}
	if err != nil {
		return head.String(), total, fmt.Errorf("%s cannot be read: %w", filepath.Base(src), err), nil
	}
	return head.String(), total, nil, nil
}

// headWriter writes through to w and keeps the first max bytes in head;
// err is w's error, told apart from the reader's.
type headWriter struct {
	w    io.Writer
	head *strings.Builder
	max  int
	err  error
}

func (h *headWriter) Write(p []byte) (int, error) {
	if n := min(h.max-h.head.Len(), len(p)); n > 0 {
		h.head.Write(p[:n])
	}
	n, err := h.w.Write(p)
	if err != nil {
		h.err = err
	}
	return n, err
}
