package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/serve"
)

// writeText prints ds in planc's text form, one block per diagnostic:
//
//	file:line:col: severity: message [code]
//	    the source line
//	    ^~~~ under the span
//
// A span over several lines is underlined to the end of its first line. A
// diagnostic without a position prints only its first line, as file:
// severity: message [code].
func writeText(w io.Writer, ds []fileDiag) error {
	var b bytes.Buffer
	for _, d := range ds {
		if !d.Span.IsValid() {
			fmt.Fprintf(&b, "%s: %s: %s [%s]\n", d.file.name, d.Severity, d.Message, d.Code)
			continue
		}
		fmt.Fprintf(&b, "%s:%d:%d: %s: %s [%s]\n", d.file.name, d.Span.Start.Line, d.Span.Start.Col, d.Severity, d.Message, d.Code)
		line, ls := lineAt(d.file.src, d.Span.Start)
		start := clamp(int(d.Span.Start.Offset)-ls, 0, len(line))
		end := start
		if d.Span.End.Line == d.Span.Start.Line && d.Span.End.Offset > d.Span.Start.Offset {
			end = clamp(int(d.Span.End.Offset)-ls, start, len(line))
		} else if d.Span.End.Line > d.Span.Start.Line {
			end = len(line)
		}
		text, caret := snippet(line, start, end)
		if text != "" {
			b.WriteString("    ")
			b.WriteString(text)
		}
		b.WriteString("\n    ")
		b.WriteString(caret)
		b.WriteString("\n")
	}
	_, err := w.Write(b.Bytes())
	return err
}

// jsonDiag is one element of --format json's array: the same object
// check-plan returns as structured content (serve.Diagnostic). step is null
// when the diagnostic belongs to no step; suggestion is left out when empty.
type jsonDiag = serve.Diagnostic

// writeJSON prints ds as one indented JSON array ([] when ds is empty).
func writeJSON(w io.Writer, ds []fileDiag) error {
	out := make([]jsonDiag, 0, len(ds))
	for _, d := range ds {
		end := spanEnd(d.Span)
		j := jsonDiag{
			File: d.file.name, Line: int(d.Span.Start.Line), Col: int(d.Span.Start.Col),
			EndLine: int(end.Line), EndCol: int(end.Col),
			Severity: d.Severity.String(), Code: d.Code, Message: d.Message,
			Suggestion: d.Suggestion,
		}
		if d.Step != "" {
			j.Step = &d.Step
		}
		out = append(out, j)
	}
	return encodeJSON(w, out)
}

// encodeJSON writes v indented by two spaces, without escaping <, > and &
// (messages quote conditions such as a && b).
func encodeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// spanEnd returns the span's end, or its start when the end was not set.
func spanEnd(sp ast.Span) ast.Pos {
	if !sp.End.IsValid() {
		return sp.Start
	}
	return sp.End
}

// lineAt returns the text of the line holding p (without its line break)
// and the offset of the line's first byte. It trusts p.Offset and p.Col
// when they agree with src, and otherwise finds the line by its number.
func lineAt(src []byte, p ast.Pos) ([]byte, int) {
	ls := int(p.Offset) - int(p.Col-1)
	if ls < 0 || ls > len(src) || int(p.Offset) > len(src) || (ls > 0 && src[ls-1] != '\n') {
		ls = 0
		for line := 1; line < int(p.Line); line++ {
			i := bytes.IndexByte(src[ls:], '\n')
			if i < 0 {
				ls = len(src)
				break
			}
			ls += i + 1
		}
	}
	line := src[ls:]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	return bytes.TrimSuffix(line, []byte("\r")), ls
}

func clamp(x, lo, hi int) int { return max(lo, min(x, hi)) }

// Long lines (a minified plan is one line) are shown as a window of at most
// maxSnippetCells terminal cells, starting snippetLead cells before the span.
const (
	maxSnippetCells = 160
	snippetLead     = 40
)

// snippet returns the source line as shown under a diagnostic and the caret
// line marking bytes [start, end) of it: "^" under the span's first
// character, then "~" under the rest, at least one "^". Positions count
// bytes but terminals count cells, so the caret line is built per character:
// a tab stays a tab (so it lines up whatever the tab width), anything else
// becomes as many spaces as the character takes cells. Control characters,
// bidirectional overrides and invalid UTF-8 are shown as U+FFFD.
func snippet(line []byte, start, end int) (text, caret string) {
	segs := segments(line)
	si, ei := len(segs), len(segs)
	for i, s := range segs {
		if s.off >= start && si == len(segs) {
			si = i
		}
		if s.off >= end {
			ei = i
			break
		}
	}
	ei = max(ei, si)
	lo, hi := 0, len(segs)
	total := 0
	for _, s := range segs {
		total += s.cells
	}
	if total > maxSnippetCells {
		lo = si
		for lead := 0; lo > 0 && lead+segs[lo-1].cells <= snippetLead; lo-- {
			lead += segs[lo-1].cells
		}
		hi = lo
		for w := 0; hi < len(segs) && w+segs[hi].cells <= maxSnippetCells; hi++ {
			w += segs[hi].cells
		}
	}
	var t, c strings.Builder
	if lo > 0 {
		t.WriteString("…")
		c.WriteString(" ")
	}
	for i := lo; i < hi; i++ {
		t.WriteString(segs[i].text)
	}
	if hi < len(segs) {
		t.WriteString("…")
	}
	for i := lo; i < si && i < hi; i++ {
		if segs[i].text == "\t" {
			c.WriteByte('\t')
		} else {
			c.WriteString(strings.Repeat(" ", segs[i].cells))
		}
	}
	n := 0
	for i := si; i < ei && i < hi; i++ {
		n += segs[i].cells
	}
	c.WriteString("^")
	c.WriteString(strings.Repeat("~", max(n, 1)-1))
	return t.String(), c.String()
}
