package tracefile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
	"unicode/utf16"
	"unicode/utf8"
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

// fastDecoder walks one line.
type fastDecoder struct {
	b  []byte
	i  int
	ld *lineDecoder // nil: every string is a new one
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

// str consumes a JSON string and returns its text as encoding/json would
// (escapes decoded, invalid UTF-8 and lone surrogates as U+FFFD).
func (d *fastDecoder) str() (string, bool) {
	start := d.i
	if b, ok := d.strBytes(); ok {
		return d.ld.text(b), true
	}
	d.i = start
	return d.quoted()
}

// quoted consumes a JSON string that may hold escapes and any UTF-8.
func (d *fastDecoder) quoted() (string, bool) {
	if !d.byte('"') {
		return "", false
	}
	var out []byte
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			return string(out), true
		case c < 0x20:
			return "", false
		case c == '\\':
			if d.i+1 >= len(d.b) {
				return "", false
			}
			e := d.b[d.i+1]
			d.i += 2
			switch e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := d.hex4()
				if !ok {
					return "", false
				}
				if utf16.IsSurrogate(r) {
					// A pair goes together; anything else is U+FFFD, and
					// what follows is read on its own.
					save := d.i
					if d.byte('\\') && d.byte('u') {
						if r2, ok := d.hex4(); ok {
							if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
								out = utf8.AppendRune(out, dec)
								continue
							}
						}
					}
					d.i, r = save, utf8.RuneError
				}
				out = utf8.AppendRune(out, r)
			default:
				return "", false
			}
		case c < utf8.RuneSelf:
			out = append(out, c)
			d.i++
		default:
			r, size := utf8.DecodeRune(d.b[d.i:])
			if r == utf8.RuneError && size == 1 {
				out = utf8.AppendRune(out, utf8.RuneError)
			} else {
				out = append(out, d.b[d.i:d.i+size]...)
			}
			d.i += size
		}
	}
	return "", false
}

// hex4 consumes four hex digits.
func (d *fastDecoder) hex4() (rune, bool) {
	if len(d.b)-d.i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range d.b[d.i : d.i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	d.i += 4
	return r, true
}

// strBytes consumes a string as str does and returns its bytes, valid as
// long as the line.
func (d *fastDecoder) strBytes() ([]byte, bool) {
	if !d.byte('"') {
		return nil, false
	}
	start := d.i
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			return d.b[start : d.i-1], true
		case c < 0x20 || c >= 0x7f || c == '\\':
			return nil, false
		}
		d.i++
	}
	return nil, false
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
	}
	return nil
}

// intField returns the int field of e that member key fills, or nil
// (duration_ms, an int64, is member's own case).
func intField(e *Event, key []byte) *int {
	switch string(key) {
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
