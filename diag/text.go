package diag

import (
	"bytes"
	"fmt"
	"io"

	"github.com/planc/planc/ast"
)

// WriteText prints ds in planc's text form, one block per diagnostic:
//
//	file:line:col: severity: message [code]
//	    the source line
//	    ^~~~ under the span
//
// The first line is ast.Diagnostic.OneLine. A span over several lines is
// underlined to the end of its first line. A diagnostic without a position
// prints only its first line, as file: severity: message [code]. A long
// line is shown as a window around the span (see snippet). Each source
// line is read once for all the diagnostics on it, in the order Sort
// gives, so the work is linear in the input and the output.
func WriteText(w io.Writer, ds []Diagnostic) error {
	var b bytes.Buffer
	lines := lineCache{}
	for _, d := range ds {
		if !d.Span.IsValid() {
			fmt.Fprintf(&b, "%s: %s: %s [%s]\n", d.File.Name, d.Severity, d.Message, d.Code)
			continue
		}
		b.WriteString(d.OneLine(d.File.Name))
		b.WriteByte('\n')
		ln := lines.at(d.File, d.Span.Start)
		start := clamp(int(d.Span.Start.Offset)-ln.start, 0, ln.len())
		end := start
		if d.Span.End.Line == d.Span.Start.Line && d.Span.End.Offset > d.Span.Start.Offset {
			end = clamp(int(d.Span.End.Offset)-ln.start, start, ln.len())
		} else if d.Span.End.Line > d.Span.Start.Line {
			end = ln.len()
		}
		mark := b.Len()
		b.WriteString("    ")
		caret := ln.snippet(&b, start, end)
		if b.Len() == mark+4 {
			b.Truncate(mark) // an empty line: no indent before the line break
		}
		b.WriteString("\n    ")
		b.WriteString(caret)
		b.WriteByte('\n')
	}
	_, err := w.Write(b.Bytes())
	return err
}

// lineCache finds the source line of a position, and keeps what was
// learnt about each line (where it ends, how far the renderer has read
// it) for the next diagnostic on it.
type lineCache map[lineKey]*line

// lineKey names a line: its file and the offset of its first byte.
type lineKey struct {
	file  *File
	start int
}

// at returns the line of f holding p.
func (c lineCache) at(f *File, p ast.Pos) *line {
	ls := lineStart(f.Src, p)
	k := lineKey{f, ls}
	if ln, ok := c[k]; ok {
		return ln
	}
	text := f.Src[ls:]
	if i := bytes.IndexByte(text, '\n'); i >= 0 {
		text = text[:i]
	}
	ln := &line{text: bytes.TrimSuffix(text, []byte("\r")), start: ls, wide: -1}
	ln.rewind()
	c[k] = ln
	return ln
}

// lineStart returns the offset of the first byte of the line holding p.
// It trusts p.Offset and p.Col when they agree with src, and otherwise
// finds the line by its number.
func lineStart(src []byte, p ast.Pos) int {
	ls := int(p.Offset) - int(p.Col-1)
	if ls >= 0 && ls <= len(src) && int(p.Offset) <= len(src) && (ls == 0 || src[ls-1] == '\n') {
		return ls
	}
	ls = 0
	for n := 1; n < int(p.Line); n++ {
		i := bytes.IndexByte(src[ls:], '\n')
		if i < 0 {
			return len(src)
		}
		ls += i + 1
	}
	return ls
}

// lineAt returns the text of the line holding p (without its line break)
// and the offset of the line's first byte.
func lineAt(src []byte, p ast.Pos) ([]byte, int) {
	ls := lineStart(src, p)
	text := src[ls:]
	if i := bytes.IndexByte(text, '\n'); i >= 0 {
		text = text[:i]
	}
	return bytes.TrimSuffix(text, []byte("\r")), ls
}

func clamp(x, lo, hi int) int { return max(lo, min(x, hi)) }
