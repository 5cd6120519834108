// Package ast holds planc's typed syntax tree: the plan, its steps, every
// field's key and value, the JSON values inside input, references and the
// condition tree of an `if`. It is the first stage of the one-way flow
// (bytes → ast → check → ir → vm) and imports nothing of ours.
//
// Every node carries a Span: a start and an end Pos, each a byte offset with a
// 1-based line and a 1-based column counted in bytes from the line's start.
package ast

import "fmt"

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

// Span is the half-open byte range [Start, End) of a node.
type Span struct {
	Start Pos
	End   Pos
}

// IsValid reports whether s was set.
func (s Span) IsValid() bool { return s.Start.IsValid() }

// String formats s as line:col-line:col.
func (s Span) String() string { return s.Start.String() + "-" + s.End.String() }
