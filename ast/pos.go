// Package ast holds planc's typed syntax tree: the plan, its steps, every
// field's key and value, the JSON values inside input, references and the
// condition tree of an `if`. It is the first stage of the one-way flow
// (bytes → ast → check → ir → vm) and imports nothing of ours.
//
// Every node carries a Range: the byte offsets of its start and its end in
// the source file, 8 bytes. A Span is the same range with each end resolved
// to a 1-based line and a 1-based column counted in bytes from the line's
// start; it is what a Diagnostic holds, made from a Range by Lines only when
// a diagnostic is made, so the nodes of a plan carry no line numbers.
package ast

import (
	"fmt"
	"sort"
	"sync"
)

// Pos is a position in a source file.
type Pos struct {
	Offset int32 // byte offset from the start of the file, 0-based
	Line   int32 // 1-based line
	Col    int32 // 1-based column, in bytes
}

// IsValid reports whether p was set (line numbers start at 1).
func (p Pos) IsValid() bool { return p.Line > 0 }

// Add returns the position d bytes after p on p's line.
func (p Pos) Add(d int32) Pos { return Pos{Offset: p.Offset + d, Line: p.Line, Col: p.Col + d} }

// String formats p as line:col.
func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

// Span is the half-open byte range [Start, End) of a node, with lines and
// columns: a diagnostic's.
type Span struct {
	Start Pos
	End   Pos
}

// IsValid reports whether s was set.
func (s Span) IsValid() bool { return s.Start.IsValid() }

// String formats s as line:col-line:col.
func (s Span) String() string { return s.Start.String() + "-" + s.End.String() }

// Range is the half-open byte range [Start, End) of a node in its source
// file: what every node keeps (Lines resolves it to a Span).
type Range struct {
	Start, End int32
}

// Len is the number of bytes in r.
func (r Range) Len() int32 { return r.End - r.Start }

// Lines resolves byte offsets of one source text to lines and columns. Its
// table of line starts is built the first time a position is asked for, so
// a document without diagnostics never pays for it; it is safe for
// concurrent use.
type Lines struct {
	src    string
	once   sync.Once
	starts []int32 // offset of each line's first byte
}

// NewLines returns the resolver of positions in src.
func NewLines(src string) *Lines { return &Lines{src: src} }

// Pos returns the position of byte offset off. A nil *Lines (a tree built
// by hand, without its text) puts every offset on line 1.
func (l *Lines) Pos(off int32) Pos {
	if l == nil {
		return Pos{Offset: off, Line: 1, Col: off + 1}
	}
	l.once.Do(func() {
		l.starts = append(l.starts, 0)
		for i := 0; i < len(l.src); i++ {
			if l.src[i] == '\n' {
				l.starts = append(l.starts, int32(i+1))
			}
		}
	})
	// The line is the last whose start is at or before off.
	k := sort.Search(len(l.starts), func(i int) bool { return l.starts[i] > off }) - 1
	if k < 0 {
		k = 0
	}
	return Pos{Offset: off, Line: int32(k + 1), Col: off - l.starts[k] + 1}
}

// Span resolves r. A span over one newline (a control character inside a
// string) ends on that newline's line, one column after it.
func (l *Lines) Span(r Range) Span {
	if l != nil && r.End == r.Start+1 && int(r.End) <= len(l.src) && l.src[r.Start] == '\n' {
		return Span{Start: l.Pos(r.Start), End: l.Pos(r.End - 1).Add(1)}
	}
	return Span{Start: l.Pos(r.Start), End: l.Pos(r.End)}
}
