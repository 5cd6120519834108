package tracefile

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// fastDecoder walks one JSON text (a trace line, a kept report), taking
// only what planc writes; each method reports false for anything else.
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

// object consumes a JSON object, handing each member's name to member,
// which consumes its value.
func (d *fastDecoder) object(member func(key []byte) bool) bool {
	d.space()
	if !d.byte('{') {
		return false
	}
	d.space()
	if d.byte('}') {
		return true
	}
	for {
		d.space()
		key, ok := d.strBytes()
		if !ok {
			return false
		}
		d.space()
		if !d.byte(':') {
			return false
		}
		d.space()
		if !member(key) {
			return false
		}
		d.space()
		if d.byte('}') {
			return true
		}
		if !d.byte(',') {
			return false
		}
	}
}

// nullOr consumes null, which leaves a value as it is (as encoding/json
// does for a string), or what value consumes.
func (d *fastDecoder) nullOr(value func() bool) bool {
	return d.literal("null") || value()
}

// array consumes a JSON list, handing each element to elem, which
// consumes it.
func (d *fastDecoder) array(elem func() bool) bool {
	if !d.byte('[') {
		return false
	}
	d.space()
	if d.byte(']') {
		return true
	}
	for {
		d.space()
		if !elem() {
			return false
		}
		d.space()
		if d.byte(']') {
			return true
		}
		if !d.byte(',') {
			return false
		}
	}
}
