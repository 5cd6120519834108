package tracefile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// lineDecoder decodes the lines of one trace.
type lineDecoder struct {
	// lean leaves out what a redrive's read-back never looks at: ts (and
	// TS) and session.
	lean bool
	// recent holds strings met before, by a cheap hash of their bytes:
	// event names, statuses, plan ids repeat line after line, and are
	// then shared rather than made again.
	recent [64]string
}

// decode parses one line. ok is false when the line cannot be used at all
// (note says why); a usable line may still carry a note.
//
// Lines as planc writes them take a fast path (fastDecode); any other line,
// and any line the fast path is unsure of, goes through encoding/json, which
// gives the same Event for every line the fast path takes
// (FuzzFastDecode holds the two to it).
func (ld *lineDecoder) decode(line []byte, n int, e *Event) (note string, ok bool) {
	*e = Event{}
	fd := fastDecoder{b: line, ld: ld}
	if !fd.event(e) {
		*e = Event{}
		trimmed := bytes.TrimLeft(line, " \t\r\n")
		if len(trimmed) == 0 || trimmed[0] != '{' {
			return "not a JSON object", false
		}
		slow := new(Event)
		err := json.Unmarshal(line, slow)
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &te):
			note = fmt.Sprintf("field %s has the wrong type (%s); read as empty", quote(te.Field), te.Value)
		case err != nil:
			return "not a JSON object", false
		}
		*e = *slow
	}
	e.Line = n
	if e.Event == "" {
		return "no event", false
	}
	if ld.lean {
		e.RawTS, e.Session = "", ""
	} else if e.RawTS != "" {
		if ts, err := time.Parse(time.RFC3339Nano, e.RawTS); err == nil {
			e.TS = ts
		}
	}
	return note, true
}

// text returns b as a string, shared with an earlier line's when the
// decoder has met the same text recently.
func (ld *lineDecoder) text(b []byte) string {
	if ld == nil || len(b) == 0 || len(b) > 64 {
		return string(b)
	}
	slot := &ld.recent[(len(b)*7+int(b[0])+int(b[len(b)-1])*3)&63]
	if *slot == string(b) {
		return *slot
	}
	*slot = string(b)
	return *slot
}

// fastDecode parses line into e when it is a flat JSON object whose
// member names are printable ASCII without escapes, whose known members
// have their own type (or null) and whose other members are strings,
// numbers, booleans or null: what planc writes for every line. It returns
// false for anything else, leaving e in any state.
func fastDecode(line []byte, e *Event) bool {
	d := fastDecoder{b: line}
	return d.event(e)
}

// event parses the whole line into e, as fastDecode.
func (d *fastDecoder) event(e *Event) bool {
	return d.object(func(key []byte) bool { return d.member(key, e) }) && d.end()
}

// member consumes the value of member key into e.
func (d *fastDecoder) member(key []byte, e *Event) bool {
	if s := stringField(e, key); s != nil {
		if d.literal("null") {
			return true // null leaves a string as it is, as encoding/json does
		}
		if string(key) == "ts" && d.ld != nil && d.ld.lean {
			_, ok := d.strBytes() // unique to the line, and unused
			return ok
		}
		v, ok := d.str()
		*s = v
		return ok
	}
	if n := intField(e, key); n != nil {
		if d.literal("null") {
			return true
		}
		v, ok := d.integer()
		if !ok || int64(int(v)) != v {
			return false
		}
		*n = int(v)
		return true
	}
	if string(key) == "duration_ms" {
		if d.literal("null") {
			return true
		}
		v, ok := d.integer()
		e.DurationMS = v
		return ok
	}
	switch string(key) {
	case "reused":
		switch {
		case d.literal("true"):
			e.Reused = true
		case d.literal("false"):
			e.Reused = false
		default:
			return d.literal("null")
		}
		return true
	case "delegation_ids":
		if d.literal("null") {
			e.DelegationIDs = nil
			return true
		}
		return d.strings(&e.DelegationIDs)
	}
	for i := 0; i < len(key); i++ {
		if c := key[i]; c >= 'A' && c <= 'Z' {
			return false // encoding/json matches member names without case
		}
	}
	switch {
	case d.i < len(d.b) && d.b[d.i] == '"':
		_, ok := d.str()
		return ok
	case d.literal("null"), d.literal("true"), d.literal("false"):
		return true
	default:
		return d.number()
	}
}

// strings consumes a list of strings into dst.
func (d *fastDecoder) strings(dst *[]string) bool {
	list := []string{}
	if !d.array(func() bool {
		s, ok := d.str()
		list = append(list, s)
		return ok
	}) {
		return false
	}
	*dst = list
	return true
}

// stringField returns the string field of e that member key fills, or nil.
func stringField(e *Event, key []byte) *string {
	switch string(key) {
	case "ts":
		return &e.RawTS
	case "event":
		return &e.Event
	case "session":
		return &e.Session
	case "capsule":
		return &e.Capsule
	case "version":
		return &e.Version
	case "spawned_by":
		return &e.SpawnedBy
	case "delegation_id":
		return &e.DelegationID
	case "exit_status":
		return &e.ExitStatus
	case "plan_id":
		return &e.PlanID
	case "plan_file":
		return &e.PlanFile
	case "sha256":
		return &e.SHA256
	case "step_id":
		return &e.StepID
	case "kind":
		return &e.Kind
	case "status":
		return &e.Status
	case "error":
		return &e.Error
	case "outcome":
		return &e.Outcome
	case "failed_step":
		return &e.FailedStep
	case "reason":
		return &e.Reason
	case "task_id":
		return &e.TaskID
	case "path":
		return &e.Path
	case "on":
		return &e.On
	case "file":
		return &e.File
	}
	return nil
}

// intField returns the int field of e that member key fills, or nil
// (duration_ms, an int64, is member's own case).
func intField(e *Event, key []byte) *int {
	switch string(key) {
	case "plan":
		return &e.Plan
	case "steps":
		return &e.Steps
	case "attempt":
		return &e.Attempt
	case "succeeded":
		return &e.Succeeded
	case "failed":
		return &e.Failed
	case "skipped":
		return &e.Skipped
	case "pid":
		return &e.PID
	case "hook":
		return &e.Hook
	case "redrive":
		return &e.Redrive
	case "output_bytes":
		return &e.OutputBytes
	case "offset":
		return &e.Offset
	case "length":
		return &e.Length
	}
	return nil
}
