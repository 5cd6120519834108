package sessionfmt

import (
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
