package parser

import "github.com/planc/planc/ast"

// CondSource maps byte offsets in a condition's decoded text to positions in
// the plan file, so a condition's tokens are reported where they really are,
// also when the JSON string holds escapes before them.
type CondSource struct {
	// Base is the file position of the condition text's first byte (just
	// after the opening quote of the JSON string).
	Base ast.Pos
	// Offsets, when non-nil, has len(text)+1 entries: Offsets[i] is the
	// source byte offset, relative to Base.Offset, of decoded byte i (the
	// last entry is the position just past the text). Nil means decoded and
	// source bytes coincide.
	Offsets []int
}

// Pos returns the file position of decoded byte i of the condition text.
// JSON strings hold no raw newline, so the line is always Base's.
func (s CondSource) Pos(i int) ast.Pos {
	d := i
	if len(s.Offsets) > 0 {
		if i < 0 {
			i = 0
		}
		if i >= len(s.Offsets) {
			i = len(s.Offsets) - 1
		}
		d = s.Offsets[i]
	}
	return ast.Pos{Offset: s.Base.Offset + int32(d), Line: s.Base.Line, Col: s.Base.Col + int32(d)}
}

// Span returns the file span of decoded bytes [i, j).
func (s CondSource) Span(i, j int) ast.Span { return ast.Span{Start: s.Pos(i), End: s.Pos(j)} }
