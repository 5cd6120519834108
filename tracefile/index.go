package tracefile

import (
	"bytes"

	"github.com/planc/planc/internal/regfile"
	"github.com/planc/planc/internal/sessionfmt"
)

// readIndex reads the output index at path and returns, by index in ids
// (the steps' ids; byID maps them back), the line of each step's attempt
// that want picks (the last such line wins). Lines that cannot be read
// (torn by a writer that died) are left out; a missing file is an empty
// index.
func readIndex(path string, ids []string, byID map[string]int, want func(si, attempt int) bool) []*sessionfmt.IndexRecord {
	b, err := regfile.ReadFile(path)
	if err != nil {
		return nil
	}
	out := make([]*sessionfmt.IndexRecord, len(ids))
	next := 0 // the lines come in the order the trace first met the steps, mostly
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			break // what is left is a line cut short, or nothing
		}
		line := b[:i]
		b = b[i+1:]
		var r sessionfmt.IndexRecord
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

// decodeIndexRecord decodes one output index line as sessionfmt.AppendIndexRecord
// writes it into r, all but its StepID, whose bytes it returns; ok is
// false for anything else.
func decodeIndexRecord(line []byte, r *sessionfmt.IndexRecord) (id []byte, ok bool) {
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
	if !ok || !seenID || !seenAttempt || !seenBytes || (r.HasOutput && len(r.Output) > sessionfmt.IndexedOutputMax) {
		return nil, false
	}
	return id, true
}

// textFromFile makes the text of record r again from its kept output file
// at path: the file when it is within sessionfmt.OutputLimit, else its first bytes
// cut and marked with r.Shown. ok is false when the file cannot be read or
// is not r.Bytes long (it is not the output the record describes).
func textFromFile(r *sessionfmt.IndexRecord, path string) (string, bool) {
	f, err := regfile.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() != r.Bytes {
		return "", false
	}
	want := min(r.Bytes, sessionfmt.OutputLimit+1)
	buf := make([]byte, want)
	if n, _ := f.ReadAt(buf, 0); int64(n) != want {
		return "", false
	}
	if r.Bytes <= sessionfmt.OutputLimit {
		return string(buf), true
	}
	if r.Shown == "" {
		return "", false
	}
	return sessionfmt.CutPrefix(string(buf), sessionfmt.OutputLimit, r.Bytes, r.Shown), true
}

// emptyOutputs returns the attempts of step id whose line in the output
// index at path records 0 bytes: those printed nothing, and have no kept
// file (an empty output gets none).
func emptyOutputs(path, id string) map[int]bool {
	out := map[int]bool{}
	b, err := regfile.ReadFile(path)
	if err != nil {
		return out
	}
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return out
		}
		var r sessionfmt.IndexRecord
		if got, ok := decodeIndexRecord(b[:i], &r); ok && string(got) == id && r.Bytes == 0 {
			out[r.Attempt] = true
		}
		b = b[i+1:]
	}
}
