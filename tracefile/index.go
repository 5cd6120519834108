package tracefile

import (
	"bytes"
	"os"
	"strconv"
	"unicode/utf8"

	"github.com/planc/planc/internal/jsonstr"
)

// The output index of a plan (OutputIndexPath) is a compact sidecar of
// its kept outputs: one JSON line per dispatched attempt, appended by the
// host when it has kept the attempt's whole output and before the
// dispatch returns, so that a redrive after a crash of planc reads one
// file instead of opening every kept output. It is only a shortcut: a
// line that is missing or torn sends the read-back to the kept output
// file itself.
//
//	{"step_id":"build","attempt":1,"bytes":12,"output":"built 3 pkgs"}
//	{"step_id":"test","attempt":2,"bytes":181334,"shown":"outputs/plan-1/test.2.txt"}
//
// bytes is the whole output's length. output is the text the step's
// result carried, exactly, when it is valid UTF-8 and at most
// IndexedOutputMax bytes; otherwise the line has no output, and the text
// is made again from the kept file: the file itself when bytes is at most
// OutputLimit, else its first bytes cut and marked (S20) naming shown,
// the name the mark gave the file when the step ran.

// IndexedOutputMax is the longest output text an output index line holds.
const IndexedOutputMax = 4 << 10

// IndexRecord is one line of an output index.
type IndexRecord struct {
	StepID  string
	Attempt int
	// Bytes is the length of the whole output.
	Bytes int64
	// Output is the text the step's result carried, when the line holds
	// it (HasOutput).
	Output    string
	HasOutput bool
	// Shown is the file name the cut mark gave, when the output was cut.
	Shown string
}

// NewIndexRecord is the index line of one attempt whose whole output is
// whole bytes long and whose result carried text, cut (when whole is over
// OutputLimit) with a mark naming shown. ok is false when no line can
// stand for the attempt (a step id, or a cut output's shown name, that is
// not valid UTF-8 would not read back as it is): its kept file does.
func NewIndexRecord(stepID string, attempt int, whole int64, text, shown string) (r IndexRecord, ok bool) {
	if !utf8.ValidString(stepID) || whole > OutputLimit && !utf8.ValidString(shown) {
		return IndexRecord{}, false
	}
	r = IndexRecord{StepID: stepID, Attempt: attempt, Bytes: whole}
	if len(text) <= IndexedOutputMax && utf8.ValidString(text) {
		r.Output, r.HasOutput = text, true
	}
	if whole > OutputLimit {
		r.Shown = shown
	}
	return r, true
}

// AppendIndexRecord appends r as one output index line, ending in "\n".
func AppendIndexRecord(dst []byte, r IndexRecord) []byte {
	dst = append(dst, `{"step_id":`...)
	dst = jsonstr.Append(dst, r.StepID)
	dst = append(dst, `,"attempt":`...)
	dst = strconv.AppendInt(dst, int64(r.Attempt), 10)
	dst = append(dst, `,"bytes":`...)
	dst = strconv.AppendInt(dst, r.Bytes, 10)
	if r.HasOutput {
		dst = append(dst, `,"output":`...)
		dst = jsonstr.Append(dst, r.Output)
	}
	if r.Shown != "" {
		dst = append(dst, `,"shown":`...)
		dst = jsonstr.Append(dst, r.Shown)
	}
	return append(dst, "}\n"...)
}

// readIndex reads the output index at path and returns, by index in ids
// (the steps' ids; byID maps them back), the line of each step's attempt
// that want picks (the last such line wins). Lines that cannot be read
// (torn by a writer that died) are left out; a missing file is an empty
// index.
func readIndex(path string, ids []string, byID map[string]int, want func(si, attempt int) bool) []*IndexRecord {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	out := make([]*IndexRecord, len(ids))
	next := 0 // the lines come in the order the trace first met the steps, mostly
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			break // what is left is a line cut short, or nothing
		}
		line := b[:i]
		b = b[i+1:]
		var r IndexRecord
		id, ok := decodeIndexRecord(line, &r)
		if !ok {
			continue
		}
		si := next
		if si >= len(ids) || ids[si] != string(id) {
			var ok bool
			if si, ok = byID[string(id)]; !ok {
				continue
			}
		}
		next = si + 1
		if want(si, r.Attempt) {
			r.StepID = ids[si]
			out[si] = &r
		}
	}
	return out
}

// decodeIndexRecord decodes one output index line as AppendIndexRecord
// writes it into r, all but its StepID, whose bytes it returns; ok is
// false for anything else.
func decodeIndexRecord(line []byte, r *IndexRecord) (id []byte, ok bool) {
	d := fastDecoder{b: line}
	var seenID, seenAttempt, seenBytes bool
	ok = d.object(func(key []byte) bool {
		switch string(key) {
		case "step_id":
			start := d.i
			if id, seenID = d.strBytes(); !seenID {
				d.i = start
				var s string
				s, seenID = d.quoted()
				id = []byte(s)
			}
			return seenID
		case "attempt":
			n, ok := d.integer()
			r.Attempt, seenAttempt = int(n), ok && n >= 1 && n <= 1<<30
			return seenAttempt
		case "bytes":
			n, ok := d.integer()
			r.Bytes, seenBytes = n, ok && n >= 0
			return seenBytes
		case "output":
			s, ok := d.str()
			r.Output, r.HasOutput = s, ok
			return ok
		case "shown":
			s, ok := d.str()
			r.Shown = s
			return ok
		}
		return false
	}) && d.end()
	if !ok || !seenID || !seenAttempt || !seenBytes || (r.HasOutput && len(r.Output) > IndexedOutputMax) {
		return nil, false
	}
	return id, true
}

// textFromFile makes the text of record r again from its kept output file
// at path: the file when it is within OutputLimit, else its first bytes
// cut and marked with r.Shown. ok is false when the file cannot be read or
// is not r.Bytes long (it is not the output the record describes).
func (r *IndexRecord) textFromFile(path string) (string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() != r.Bytes {
		return "", false
	}
	want := min(r.Bytes, OutputLimit+1)
	buf := make([]byte, want)
	if n, _ := f.ReadAt(buf, 0); int64(n) != want {
		return "", false
	}
	if r.Bytes <= OutputLimit {
		return string(buf), true
	}
	if r.Shown == "" {
		return "", false
	}
	return CutPrefix(string(buf), OutputLimit, r.Bytes, r.Shown), true
}
