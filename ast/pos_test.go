package ast

import "testing"

// TestLines: offsets resolve to the line and the byte column the scanner
// counted before ranges were offsets only, including at the end of the
// text, and a one-byte span over a newline ends on that newline's line.
func TestLines(t *testing.T) {
	l := NewLines("ab\ncd\n\nx")
	for off, want := range map[int32]Pos{
		0: {0, 1, 1}, 2: {2, 1, 3}, 3: {3, 2, 1}, 5: {5, 2, 3}, 6: {6, 3, 1}, 7: {7, 4, 1}, 8: {8, 4, 2},
	} {
		if got := l.Pos(off); got != want {
			t.Errorf("Pos(%d) = %+v, want %+v", off, got, want)
		}
	}
	if got, want := l.Span(Range{2, 3}), (Span{Pos{2, 1, 3}, Pos{3, 1, 4}}); got != want {
		t.Errorf("span over a newline = %v, want %v", got, want)
	}
	if got, want := l.Span(Range{1, 4}), (Span{Pos{1, 1, 2}, Pos{4, 2, 2}}); got != want {
		t.Errorf("span across lines = %v, want %v", got, want)
	}
	var none *Lines
	if got, want := none.Span(Range{4, 6}), (Span{Pos{4, 1, 5}, Pos{6, 1, 7}}); got != want {
		t.Errorf("nil Lines = %v, want %v", got, want)
	}
}
