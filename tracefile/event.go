package tracefile

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// The events of runtime.md's trace table.
const (
	EventSessionStart        = "session_start"
	EventSessionEnd          = "session_end"
	EventSpawnerEnded        = "spawner_ended"
	EventPlanStart           = "plan_start"
	EventPlanStepStart       = "plan_step_start"
	EventPlanStep            = "plan_step"
	EventPlanEnd             = "plan_end"
	EventDelegationStart     = "delegation_start"
	EventDelegation          = "delegation"
	EventTaskCanceled        = "task_canceled"
	EventTaskEnd             = "task_end"
	EventProtectedPathDenied = "protected_path_denied"
	EventCallDenied          = "call_denied"
)

// KnownEvent reports whether name is an event of runtime.md's trace table.
func KnownEvent(name string) bool {
	switch name {
	case EventSessionStart, EventSessionEnd, EventSpawnerEnded, EventPlanStart, EventPlanStepStart, EventPlanStep, EventPlanEnd,
		EventDelegationStart, EventDelegation, EventTaskCanceled, EventTaskEnd, EventProtectedPathDenied, EventCallDenied:
		return true
	}
	return false
}

// Event is one line of a trace. Every line has ts, event and session; the
// other fields are those of its event (runtime.md, "Trace"), zero when the
// line does not have them or has null.
type Event struct {
	// Line is the line's number in the file, from 1.
	Line int `json:"-"`
	// TS is the line's time; zero when ts is absent or not RFC 3339.
	TS      time.Time `json:"-"`
	RawTS   string    `json:"ts"`
	Event   string    `json:"event"`
	Session string    `json:"session"`

	// session_start; delegation_start (Capsule, Version, DelegationID).
	Capsule      string `json:"capsule"`
	Version      string `json:"version"`
	SpawnedBy    string `json:"spawned_by"`
	DelegationID string `json:"delegation_id"`
	// session_end.
	ExitStatus string `json:"exit_status"`

	// plan_start.
	PlanID   string `json:"plan_id"`
	PlanFile string `json:"plan_file"`
	Steps    int    `json:"steps"`
	// plan_step_start and plan_step.
	StepID     string `json:"step_id"`
	Kind       string `json:"kind"`
	Attempt    int    `json:"attempt"`
	Status     string `json:"status"`
	DurationMS int64  `json:"duration_ms"`
	Error      string `json:"error"`
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
}

// Note is something a reader could not take as it was: a line that is not
// JSON, an unknown event, a delegation directory that is missing. Notes are
// shown, never fatal.
type Note struct {
	// Line is the trace line the note is about, 0 for none.
	Line int
	Text string
}

// String returns "line N: TEXT", or TEXT when the note has no line, safe
// for a terminal (control characters escaped).
func (n Note) String() string {
	if n.Line > 0 {
		return clean(fmt.Sprintf("line %d: %s", n.Line, n.Text))
	}
	return clean(n.Text)
}

// maxLine bounds one trace line: a longer one is skipped with a note
// rather than held in memory (an output is cut at 64 KiB, S20, so a real
// line is far shorter).
const maxLine = 16 << 20

// Read reads a trace.jsonl stream. It never fails on what the stream
// holds: a line that is not a JSON object, has no event, is longer than
// 16 MiB or is the unfinished last line of a trace still being written is
// left out with a note; a line with an unknown event is kept, with a note;
// a field of the wrong type is left zero, with a note. The error is an
// error reading r.
func Read(r io.Reader) ([]Event, []Note, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var events []Event
	var notes []Note
	for n := 1; ; n++ {
		line, complete, err := readLine(br)
		if err != nil {
			return events, notes, err
		}
		if line == nil {
			return events, notes, nil
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if len(line) > maxLine {
			notes = append(notes, Note{n, fmt.Sprintf("longer than %d MiB; left out", maxLine>>20)})
			continue
		}
		e, note, ok := decode(line, n)
		switch {
		case !ok && !complete:
			notes = append(notes, Note{n, "the last line is cut short (the trace was still being written, or its writer died); left out"})
			continue
		case !ok:
			notes = append(notes, Note{n, note + "; left out"})
			continue
		case note != "":
			notes = append(notes, Note{n, note})
		}
		if !KnownEvent(e.Event) {
			notes = append(notes, Note{n, fmt.Sprintf("unknown event %s; not shown", quote(e.Event))})
		}
		events = append(events, e)
	}
}

// readLine returns the next line without its "\n" and whether it had one;
// nil at the end of the stream. A line over maxLine is consumed but only
// its first maxLine+1 bytes are kept.
func readLine(br *bufio.Reader) (line []byte, complete bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
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

// decode parses one line. ok is false when the line cannot be used at all
// (note says why); a usable line may still carry a note.
func decode(line []byte, n int) (e Event, note string, ok bool) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(line, &probe); err != nil {
		return e, "not a JSON object", false
	}
	err := json.Unmarshal(line, &e)
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &te):
		note = fmt.Sprintf("field %s has the wrong type (%s); read as empty", quote(te.Field), te.Value)
	case err != nil:
		return e, "not a JSON object", false
	}
	e.Line = n
	if e.Event == "" {
		return e, "no event", false
	}
	if e.RawTS != "" {
		if ts, err := time.Parse(time.RFC3339Nano, e.RawTS); err == nil {
			e.TS = ts
		}
	}
	return e, note, true
}
