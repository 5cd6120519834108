package diag

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/planc/planc/ast"
)

// oneLine is a minified plan of about size bytes on one line, with a
// two-byte letter and a wide character now and then, and n diagnostics
// spread evenly over it, each under a 6-byte span.
func oneLine(size, n int) []Diagnostic {
	unit := `{"id":"step-é日","tool":"notes"},`
	src := []byte(strings.Repeat(unit, size/len(unit)))
	f := &File{Name: "plan.json", Src: src}
	ds := make([]Diagnostic, n)
	for i := range ds {
		off := int32(i * (len(src) / n))
		off -= off % int32(len(unit)) // at a '{'
		ds[i] = Diagnostic{File: f, Diagnostic: ast.Diagnostic{
			Span:     ast.Span{Start: ast.Pos{Offset: off, Line: 1, Col: off + 1}, End: ast.Pos{Offset: off + 6, Line: 1, Col: off + 7}},
			Severity: ast.Error, Code: "unknown-tool", Message: "tool \"notes\" is not in the capsule's inventory",
		}}
	}
	return ds
}

// BenchmarkWriteText renders 1k, 4k and 16k diagnostics on one 1 MB line:
// the time per diagnostic stays flat when rendering is linear in the
// input (reported as ns/diag), and the memory per diagnostic with it.
func BenchmarkWriteText(b *testing.B) {
	for _, n := range []int{1000, 4000, 16000} {
		ds := oneLine(1<<20, n)
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := WriteText(io.Discard, ds); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/diag")
		})
	}
}
