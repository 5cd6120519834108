package parser

import "github.com/planc/planc/ast"

// CondSource maps byte offsets in a condition's decoded text to offsets in
// the plan file, so a condition's tokens are reported where they really are,
// also when the JSON string holds escapes before them.
type CondSource struct {
	// Base is the file offset of the condition text's first byte (just
	// after the opening quote of the JSON string).
	Base int32
	// Offsets, when non-nil, has len(text)+1 entries: Offsets[i] is the
	// source byte offset, relative to Base, of decoded byte i (the last
	// entry is the position just past the text). Nil means decoded and
	// source bytes coincide.
	Offsets []int
}

// Pos returns the file offset of decoded byte i of the condition text.
func (s CondSource) Pos(i int) int32 {
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
	return s.Base + int32(d)
}

// Span returns the file range of decoded bytes [i, j).
func (s CondSource) Span(i, j int) ast.Range { return ast.Range{Start: s.Pos(i), End: s.Pos(j)} }
