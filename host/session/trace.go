package session

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/planc/planc/internal/jsonstr"
	"github.com/planc/planc/internal/sessionfmt"
	"github.com/planc/planc/vm"
)

// tsLayout is RFC 3339 in UTC with all nine digits of the nanoseconds, so
// every ts has the same width and sorts as text.
const tsLayout = "2006-01-02T15:04:05.000000000Z07:00"

// EndStatus is session_end's exit_status: how the session's last run
// ended, as docs/trace.md lists them.
type EndStatus string

// The exit statuses of session_end.
const (
	EndOK       EndStatus = "ok"
	EndFailed   EndStatus = "failed"
	EndCanceled EndStatus = "canceled"
)

// Trace writes a session's trace.jsonl (docs/trace.md): one JSON
// object a line, each line written with a single write(2) on an O_APPEND
// file, so that lines from several processes sharing the session never
// interleave. A writer killed in the middle of a write may still leave
// the first bytes of its line (the kernel stops a write to a regular file
// at a fatal signal): OpenTrace moves such a torn last line aside before
// anything else is written (S33), so that no line is ever glued onto it
// and every line is JSON. Every
// line starts with ts, event and session. The file is synced at plan_end
// and session_end. A Trace is safe for concurrent use.
type Trace struct {
	mu      sync.Mutex
	f       *os.File
	session string
	now     func() time.Time
	buf     []byte
	scratch []byte
	err     error // the first write or sync error
	// torn is set when a write left part of a line: the next line starts
	// with a newline that ends it.
	torn bool
	// sys writes to the file: os.File.Write, which makes one write(2) of
	// up to 1 GiB and writes the rest of a short one; tests replace it.
	sys func(b []byte) (int, error)
	// plan is the number of the plan this run runs, once SetPlan gave it:
	// every line after carries it as "plan", so that readers can tell the
	// lines of two runs sharing the session apart, even of plans with the
	// same id.
	plan int
}

// SetPlan numbers every line written from now on with n, the number of
// the plan this run runs (plans/plan-<n>.json): "plan": n after session.
func (t *Trace) SetPlan(n int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.plan = n
}

// OpenTrace opens the session's trace, TraceFile in its directory
// (package OpenTrace), whose lines name the session's id: the one way a
// run, a sub-capsule's command and a refused sub-capsule's record open it.
func (s *Session) OpenTrace() (*Trace, error) {
	return OpenTrace(filepath.Join(s.Dir, sessionfmt.TraceFile), s.Info.ID)
}

// OpenTrace opens (creating it if need be) the trace file at path for
// appending; every line it writes names session. When the file does not
// end with a newline (a writer was killed in the middle of its line), the
// torn bytes are moved aside (S33): copied to trace.torn-<offset> beside
// the trace, cut from it, and recorded by a trace_repaired line, the first
// line OpenTrace writes; the file stays valid JSON Lines.
func OpenTrace(path, session string) (*Trace, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	t := &Trace{f: f, session: session, now: time.Now}
	t.sys = f.Write
	// Every open Trace holds a shared lock on its file for its life; one
	// that finds none held by another can tell a torn last line (a writer
	// that died mid-line) from a line another run is writing right now,
	// and only then repairs it.
	held, err := lockFile(f, false)
	if err == nil && !held {
		err = t.repair(path)
	}
	if err == nil {
		err = shareFile(f, !held)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("trace: %w", err)
	}
	return t, nil
}

// TornFile is the name of the file beside the trace that holds the torn
// bytes found at offset (S33).
func TornFile(offset int64) string { return "trace.torn-" + strconv.FormatInt(offset, 10) }

// repair moves a torn last line aside (S33) and writes trace_repaired.
// Should another process append to the trace while this one copies the
// torn bytes, the trace is not cut (that would cut its line): the torn
// line is ended with a newline instead, as before S33, and readers skip
// it with a note.
func (t *Trace) repair(path string) error {
	fi, err := t.f.Stat()
	if err != nil || fi.Size() == 0 {
		return err
	}
	size := fi.Size()
	start, err := lineStart(t.f, size)
	if err != nil || start == size {
		return err
	}
	name := TornFile(start)
	side, err := os.OpenFile(filepath.Join(filepath.Dir(path), name), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = io.Copy(side, io.NewSectionReader(t.f, start, size-start))
	if cerr := side.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if fi, err := t.f.Stat(); err != nil || fi.Size() != size {
		os.Remove(side.Name())
		return t.writeAll([]byte{'\n'})
	}
	if err := t.f.Truncate(start); err != nil {
		return err
	}
	f := append([]byte(nil), `,"offset":`...)
	f = strconv.AppendInt(f, start, 10)
	f = append(f, `,"length":`...)
	f = strconv.AppendInt(f, size-start, 10)
	f = appendStr(f, "file", name)
	t.own(sessionfmt.EventTraceRepaired, f, true)
	return nil
}

// lineStart returns the offset just after the last newline of the file's
// first size bytes: size when the file ends with a newline, the start of
// the torn line otherwise (0 when the file has no newline at all).
func lineStart(f *os.File, size int64) (int64, error) {
	buf := make([]byte, 64<<10)
	for end := size; end > 0; {
		n := min(int64(len(buf)), end)
		if _, err := f.ReadAt(buf[:n], end-n); err != nil {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return end - n + int64(i) + 1, nil
		}
		end -= n
	}
	return 0, nil
}

// writeAll writes b at the end of the file: with one write(2) unless the
// kernel takes less (a full disk), when the rest follows. A failed write
// that left part of b sets torn.
func (t *Trace) writeAll(b []byte) error {
	for done := 0; done < len(b); {
		n, err := t.sys(b[done:])
		if n > 0 {
			done += n
		}
		if err == nil && n == 0 {
			err = io.ErrShortWrite
		}
		if err != nil {
			t.torn = done > 0
			return err
		}
	}
	return nil
}

// Event writes one of the VM's events (plan_start, plan_step_start,
// plan_step, plan_end); plan_end is synced.
func (t *Trace) Event(e vm.Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.scratch = e.AppendFields(t.scratch[:0])
	// AppendFields starts with "event":"NAME", and the line wants session
	// right after event: split there.
	const head = `"event":"`
	name, rest := t.scratch, []byte(nil)
	if i := bytes.Index(t.scratch[len(head):], []byte(`",`)); i >= 0 {
		name, rest = t.scratch[:len(head)+i+1], t.scratch[len(head)+i+2:]
	}
	t.write(name, rest, e.Kind == vm.PlanEnd)
}

// SessionStart writes session_start. spawnedBy and delegationID are ""
// at top level, written as null.
func (t *Trace) SessionStart(capsule, version, spawnedBy, delegationID string) {
	f := appendStr(nil, "capsule", capsule)
	f = appendStr(f, "version", version)
	f = appendNullable(f, "spawned_by", spawnedBy)
	f = appendNullable(f, "delegation_id", delegationID)
	t.own("session_start", f, false)
}

// Start writes session_start for the session info describes: its
// capsule and version, and the parent session and delegation of a
// sub-capsule's.
func (t *Trace) Start(info sessionfmt.SessionInfo) {
	t.SessionStart(info.Capsule, info.Version, deref(info.SpawnedBy), deref(info.DelegationID))
}

// deref is a nullable string of session.json, "" for null.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// SessionEnd writes session_end with its exit_status and syncs the file.
func (t *Trace) SessionEnd(status EndStatus) {
	t.own("session_end", appendStr(nil, "exit_status", string(status)), true)
}

// ProtectedPathDenied writes protected_path_denied: a step refused for
// writing under a protected path.
func (t *Trace) ProtectedPathDenied(planID, stepID, path string) {
	f := appendStr(nil, "plan_id", planID)
	f = appendStr(f, "step_id", stepID)
	f = appendStr(f, "path", path)
	t.own("protected_path_denied", f, false)
}

// CallDenied writes call_denied: a step refused by the hook at index hook
// of the manifest's hooks, bound to on.
func (t *Trace) CallDenied(planID, stepID string, hook int, on string) {
	f := appendStr(nil, "plan_id", planID)
	f = appendStr(f, "step_id", stepID)
	f = append(f, `,"hook":`...)
	f = strconv.AppendInt(f, int64(hook), 10)
	f = appendStr(f, "on", on)
	t.own("call_denied", f, false)
}

// own writes a host event whose fields (each starting with a comma) are f.
func (t *Trace) own(event string, f []byte, sync bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	name := append(append(t.scratch[:0], `"event":"`...), event...)
	name = append(name, '"')
	if len(f) > 0 {
		f = f[1:] // write adds the comma after session
	}
	t.write(name, f, sync)
}

// write assembles {"ts":…,EVENT,"session":…[,"plan":N],REST} and writes it with one
// write(2). The caller holds t.mu.
func (t *Trace) write(event, rest []byte, sync bool) {
	b := t.buf[:0]
	if t.torn {
		b = append(b, '\n') // ends the part of a line a failed write left
	}
	b = append(b, `{"ts":"`...)
	b = t.now().UTC().AppendFormat(b, tsLayout)
	b = append(b, `",`...)
	b = append(b, event...)
	b = append(b, `,"session":`...)
	b = jsonstr.Append(b, t.session)
	if t.plan > 0 {
		b = append(b, `,"plan":`...)
		b = strconv.AppendInt(b, int64(t.plan), 10)
	}
	if len(rest) > 0 {
		b = append(b, ',')
		b = append(b, rest...)
	}
	b = append(b, "}\n"...)
	t.buf = b
	if t.f == nil {
		t.setErr(errors.New("trace: write after Close"))
		return
	}
	// One write(2): on a regular file opened O_APPEND, the kernel places
	// the whole buffer at the end at once.
	t.torn = false
	if err := t.writeAll(b); err != nil {
		t.setErr(fmt.Errorf("trace: write %s: %v", t.f.Name(), err))
	}
	if sync {
		if err := t.f.Sync(); err != nil {
			t.setErr(fmt.Errorf("trace: sync %s: %v", t.f.Name(), err))
		}
	}
}

func (t *Trace) setErr(err error) {
	if t.err == nil {
		t.err = err
	}
}

// Err returns the first error a write or a sync met, or nil.
func (t *Trace) Err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// Close closes the file and returns the first error met, if any.
func (t *Trace) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.f == nil {
		return t.err
	}
	if err := t.f.Close(); err != nil {
		t.setErr(err)
	}
	t.f = nil
	return t.err
}

// appendStr appends ,"key":"value".
func appendStr(dst []byte, key, value string) []byte {
	dst = append(dst, ',', '"')
	dst = append(dst, key...)
	dst = append(dst, '"', ':')
	return jsonstr.Append(dst, value)
}

// appendNullable appends ,"key":"value", or ,"key":null for "".
func appendNullable(dst []byte, key, value string) []byte {
	if value == "" {
		dst = append(dst, ',', '"')
		dst = append(dst, key...)
		return append(dst, `":null`...)
	}
	return appendStr(dst, key, value)
}
