package tracefile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// decode parses one line. ok is false when the line cannot be used at all
// (note says why); a usable line may still carry a note.
//
// Lines as planc writes them take a fast path (fastDecode); any other line,
// and any line the fast path is unsure of, goes through encoding/json, which
// gives the same Event for every line the fast path takes
// (FuzzFastDecode holds the two to it).
func decode(line []byte, n int) (e Event, note string, ok bool) {
	if !fastDecode(line, &e) {
		e = Event{}
		trimmed := bytes.TrimLeft(line, " \t\r\n")
		if len(trimmed) == 0 || trimmed[0] != '{' {
			return e, "not a JSON object", false
		}
		err := json.Unmarshal(line, &e)
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &te):
			note = fmt.Sprintf("field %s has the wrong type (%s); read as empty", quote(te.Field), te.Value)
		case err != nil:
			return Event{}, "not a JSON object", false
		}
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

// fastDecode parses line into e when it is a flat JSON object whose
// strings are printable ASCII without escapes, whose known members have
// their own type (or null) and whose other members are strings, numbers,
// booleans or null: what planc writes for almost every line. It returns
// false for anything else, leaving e in any state.
func fastDecode(line []byte, e *Event) bool {
	d := fastDecoder{b: line}
	d.space()
	if !d.byte('{') {
		return false
	}
	d.space()
	if d.byte('}') {
		return d.end()
	}
	for {
		d.space()
		key, ok := d.str()
		if !ok {
			return false
		}
		d.space()
		if !d.byte(':') {
			return false
		}
		d.space()
		if !d.member(key, e) {
			return false
		}
		d.space()
		if d.byte('}') {
			return d.end()
		}
		if !d.byte(',') {
			return false
		}
	}
}

// fastDecoder walks one line.
type fastDecoder struct {
	b []byte
	i int
}

func (d *fastDecoder) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\r', '\n':
			d.i++
		default:
			return
		}
	}
}

func (d *fastDecoder) byte(c byte) bool {
	if d.i < len(d.b) && d.b[d.i] == c {
		d.i++
		return true
	}
	return false
}

// end reports whether only white space follows.
func (d *fastDecoder) end() bool {
	d.space()
	return d.i == len(d.b)
}

// literal consumes word (null, true, false).
func (d *fastDecoder) literal(word string) bool {
	if len(d.b)-d.i >= len(word) && string(d.b[d.i:d.i+len(word)]) == word {
		d.i += len(word)
		return true
	}
	return false
}

// str consumes a string of printable ASCII without escapes and returns
// its text.
func (d *fastDecoder) str() (string, bool) {
	if !d.byte('"') {
		return "", false
	}
	start := d.i
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			return string(d.b[start : d.i-1]), true
		case c < 0x20 || c >= 0x7f || c == '\\':
			return "", false
		}
		d.i++
	}
	return "", false
}

// integer consumes a JSON integer (no fraction, no exponent) that fits in
// an int64.
func (d *fastDecoder) integer() (int64, bool) {
	start := d.i
	d.byte('-')
	digits := d.i
	for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
		d.i++
	}
	if d.i == digits || (d.b[digits] == '0' && d.i > digits+1) {
		return 0, false
	}
	if d.i < len(d.b) && (d.b[d.i] == '.' || d.b[d.i] == 'e' || d.b[d.i] == 'E') {
		return 0, false
	}
	n, err := strconv.ParseInt(string(d.b[start:d.i]), 10, 64)
	return n, err == nil
}

// number consumes any JSON number.
func (d *fastDecoder) number() bool {
	d.byte('-')
	digits := d.i
	for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
		d.i++
	}
	if d.i == digits || (d.b[digits] == '0' && d.i > digits+1) {
		return false
	}
	if d.byte('.') {
		if !d.digits() {
			return false
		}
	}
	if d.byte('e') || d.byte('E') {
		if !d.byte('+') {
			d.byte('-')
		}
		if !d.digits() {
			return false
		}
	}
	return true
}

func (d *fastDecoder) digits() bool {
	start := d.i
	for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
		d.i++
	}
	return d.i > start
}

// member consumes the value of member key into e.
func (d *fastDecoder) member(key string, e *Event) bool {
	if s := stringField(e, key); s != nil {
		if d.literal("null") {
			return true // null leaves a string as it is, as encoding/json does
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
	if key == "duration_ms" {
		if d.literal("null") {
			return true
		}
		v, ok := d.integer()
		e.DurationMS = v
		return ok
	}
	switch key {
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
	if !d.byte('[') {
		return false
	}
	list := []string{}
	d.space()
	if !d.byte(']') {
		for {
			d.space()
			s, ok := d.str()
			if !ok {
				return false
			}
			list = append(list, s)
			d.space()
			if d.byte(']') {
				break
			}
			if !d.byte(',') {
				return false
			}
		}
	}
	*dst = list
	return true
}

// stringField returns the string field of e that member key fills, or nil.
func stringField(e *Event, key string) *string {
	switch key {
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
	}
	return nil
}

// intField returns the int field of e that member key fills, or nil
// (duration_ms, an int64, is member's own case).
func intField(e *Event, key string) *int {
	switch key {
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
	}
	return nil
}
