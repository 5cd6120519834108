package tracefile

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/planc/planc/internal/sessionfmt"
)

// Event is one line of a trace. Every line has ts, event and session; the
// other fields are those of its event (docs/trace.md), zero when the
// line does not have them or has null.
type Event struct {
	// Line is the line's number in the file, from 1.
	Line int `json:"-"`
	// TS is the line's time; zero when ts is absent or not RFC 3339.
	TS      time.Time `json:"-"`
	RawTS   string    `json:"ts"`
	Event   string    `json:"event"`
	Session string    `json:"session"`
	// Plan is the number of the plan whose run wrote the line
	// (plans/plan-<n>.json), 0 on a line written before its run numbered
	// its plan and in traces written before lines carried it. Runs that
	// share a session write to one trace at once; the number tells their
	// lines apart, even for plans with the same id.
	Plan int `json:"plan"`

	// session_start; delegation_start (Capsule, Version, DelegationID).
	Capsule      string `json:"capsule"`
	Version      string `json:"version"`
	SpawnedBy    string `json:"spawned_by"`
	DelegationID string `json:"delegation_id"`
	// session_end.
	ExitStatus string `json:"exit_status"`

	// plan_start; plan_end (Redrive).
	PlanID   string `json:"plan_id"`
	PlanFile string `json:"plan_file"`
	Steps    int    `json:"steps"`
	// SHA256 is the plan file's SHA-256 in hex (S24), "" in traces written
	// before it was recorded.
	SHA256 string `json:"sha256"`
	// Redrive is K on the plan_start and plan_end of the K-th redrive of a
	// plan, 0 on a first run (S28).
	Redrive int `json:"redrive"`
	// plan_step_start and plan_step.
	StepID     string `json:"step_id"`
	Kind       string `json:"kind"`
	Attempt    int    `json:"attempt"`
	Status     string `json:"status"`
	DurationMS int64  `json:"duration_ms"`
	Error      string `json:"error"`
	// Reused marks the plan_step of a step a redrive reused, and
	// OutputBytes is then its recorded output's length (S28).
	Reused      bool `json:"reused"`
	OutputBytes int  `json:"output_bytes"`
	// plan_end; delegation and task_end (Outcome).
	Outcome    string `json:"outcome"`
	FailedStep string `json:"failed_step"`
	Succeeded  int    `json:"succeeded"`
	Failed     int    `json:"failed"`
	Skipped    int    `json:"skipped"`

	// delegation_start and delegation.
	PID    int    `json:"pid"`
	Reason string `json:"reason"`
	// task_canceled and task_end.
	TaskID        string   `json:"task_id"`
	DelegationIDs []string `json:"delegation_ids"`
	// protected_path_denied and call_denied.
	Path string `json:"path"`
	Hook int    `json:"hook"`
	On   string `json:"on"`
	// trace_repaired (S33): the torn bytes' offset in the trace and their
	// length, and the file beside the trace that holds them now.
	Offset int    `json:"offset"`
	Length int    `json:"length"`
	File   string `json:"file"`
}

// Note is something a reader could not take as it was: a line that is not
// JSON, an unknown event, a delegation directory that is missing. Notes are
// shown, never fatal.
type Note struct {
	// Line is the trace line the note is about, 0 for none.
	Line int
	Text string
	// Skipped is set when the line, or its first bytes, were left out: a
	// torn line (a write cut short when its writer died), a line that is
	// not JSON, one too long to hold. `planc trace` writes these notes on
	// standard error.
	Skipped bool
}

// String returns "line N: TEXT", or TEXT when the note has no line, safe
// for a terminal (control characters escaped).
func (n Note) String() string {
	if n.Line > 0 {
		return Clean(fmt.Sprintf("line %d: %s", n.Line, n.Text))
	}
	return Clean(n.Text)
}

// maxLine bounds one trace line: a longer one is skipped with a note
// rather than held in memory (an output is cut at 64 KiB, S20, so a real
// line is far shorter).
const maxLine = 16 << 20

// Read reads a trace.jsonl stream. It never fails on what the stream
// holds: a line that is not a JSON object, has no event, is longer than
// 16 MiB or is the unfinished last line of a trace still being written is
// left out with a note; a line with an unknown event is kept, with a note;
// a field of the wrong type is left zero, with a note. A torn line — the
// start of a line whose writer died mid-write, with the next writer's
// whole line glued after it — gives one note, and the whole line after
// the torn bytes is read. Lines of any length are read in bounded memory.
// The error is an error reading r.
func Read(r io.Reader) ([]Event, []Note, error) {
	var events []Event
	notes, err := scan(r, &lineDecoder{}, func(e *Event) { events = append(events, *e) })
	return events, notes, err
}

// scan reads a trace stream as Read does, decoding each line with ld and
// handing each event read to fn (which must copy what it keeps), and
// returns the notes.
func scan(r io.Reader, ld *lineDecoder, fn func(*Event)) ([]Note, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var notes []Note
	skip := func(n int, text string) { notes = append(notes, Note{Line: n, Text: text, Skipped: true}) }
	var e, e2 Event // one each for the whole stream: fn copies what it keeps
	for n := 1; ; n++ {
		line, complete, err := readLine(br)
		if err != nil {
			return notes, err
		}
		if line == nil {
			return notes, nil
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if len(line) > maxLine {
			skip(n, fmt.Sprintf("longer than %d MiB; left out", maxLine>>20))
			continue
		}
		note, ok := ld.decode(line, n, &e)
		if !ok && note != "no event" {
			if i := bytes.LastIndex(line, tsStart); i > 0 {
				if note2, ok2 := ld.decode(line[i:], n, &e2); ok2 {
					skip(n, fmt.Sprintf("torn: its first %d bytes are a line whose write was cut short (its writer died mid-write); they are skipped and the line written after them is read", i))
					e, note, ok = e2, note2, true
				}
			}
		}
		switch {
		case !ok && !complete:
			skip(n, "the last line is cut short (the trace was still being written, or its writer died); left out")
			continue
		case !ok && note == "not a JSON object" && bytes.HasPrefix(bytes.TrimSpace(line), []byte("{")):
			skip(n, fmt.Sprintf("torn: %d bytes that do not end as JSON (a write cut short, e.g. by a crash); skipped", len(line)))
			continue
		case !ok:
			skip(n, note+"; left out")
			continue
		case note != "":
			notes = append(notes, Note{Line: n, Text: note})
		}
		if !sessionfmt.KnownEvent(e.Event) {
			notes = append(notes, Note{Line: n, Text: fmt.Sprintf("unknown event %s; not shown", quote(e.Event))})
		}
		fn(&e)
	}
}

// tsStart is how every line planc writes begins: a line glued after torn
// bytes is found by it (a JSON string cannot hold it unescaped).
var tsStart = []byte(`{"ts":`)

// readLine returns the next line without its "\n" and whether it had one;
// nil at the end of the stream. A line over maxLine is consumed but only
// its first maxLine+1 bytes are kept. The line is valid until the next
// call.
func readLine(br *bufio.Reader) (line []byte, complete bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if err == nil && line == nil {
			return chunk[:len(chunk)-1], true, nil // the whole line in the buffer
		}
		if len(line) <= maxLine {
			line = append(line, chunk...)
		}
		switch {
		case err == nil:
			return line[:len(line)-1], true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if len(line) == 0 {
				return nil, false, nil
			}
			return line, false, nil
		default:
			return nil, false, err
		}
	}
}
