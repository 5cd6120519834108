package tracefile

import (
	"bytes"
	"testing"

	"github.com/planc/planc/internal/sessionfmt"
)

// FuzzIndexRecord: decoding an output index line never panics, and a line
// sessionfmt.AppendIndexRecord wrote decodes to the record it was written from.
func FuzzIndexRecord(f *testing.F) {
	f.Add("build", 1, int64(3), "ok\n", "", []byte(`{"step_id":"a","attempt":1,"bytes":0,"output":""}`))
	f.Add("a/b é\x00", 7, int64(70000), "cut\u2028", "outputs/plan-1/x.7.txt", []byte(`{"step_id":"a","att`))
	f.Add("", 1, int64(5000), "\xff", "", []byte(`{"step_id":"\u00e9","attempt":1,"bytes":1,"output":"\ud800"}`))
	f.Fuzz(func(t *testing.T, id string, attempt int, whole int64, text, shown string, line []byte) {
		var r sessionfmt.IndexRecord
		decodeIndexRecord(line, &r) // anything: no panic
		if attempt < 1 || attempt > 1<<30 || whole < 0 {
			return
		}
		in, ok := sessionfmt.NewIndexRecord(id, attempt, whole, text, shown)
		if !ok {
			return
		}
		b := sessionfmt.AppendIndexRecord(nil, in)
		if bytes.Count(b, []byte{'\n'}) != 1 || b[len(b)-1] != '\n' {
			t.Fatalf("not one line: %q", b)
		}
		var out sessionfmt.IndexRecord
		gotID, ok := decodeIndexRecord(b[:len(b)-1], &out)
		if !ok {
			t.Fatalf("cannot decode %q", b)
		}
		out.StepID = string(gotID)
		if out != in {
			t.Fatalf("decoded %+v, want %+v", out, in)
		}
	})
}
