package diag

import (
	"testing"

	"github.com/planc/planc/ast"
)

func TestUTF16Col(t *testing.T) {
	src := []byte("ab\n\"é😀\" x\xffy")
	tests := []struct {
		pos  ast.Pos
		want int
	}{
		{ast.Pos{Offset: 1, Line: 1, Col: 2}, 2},
		{ast.Pos{Offset: 3, Line: 2, Col: 1}, 1},
		{ast.Pos{Offset: 6, Line: 2, Col: 4}, 3},   // after "é
		{ast.Pos{Offset: 12, Line: 2, Col: 10}, 7}, // x: "é😀" is 8 bytes, 5 units
		{ast.Pos{Offset: 14, Line: 2, Col: 12}, 9}, // y: the invalid byte counts one
		{ast.Pos{Offset: 8, Line: 2, Col: 6}, 5},   // inside 😀: its bytes before count one each
	}
	f := &File{Src: src}
	shared := columns{} // one cursor per line, for every position in turn
	for _, order := range [][]int{{0, 1, 2, 5, 3, 4}, {4, 3, 5, 2, 1, 0}, {0, 4, 2}} {
		for _, i := range order {
			tt := tests[i]
			if got := (columns{}).utf16Col(f, tt.pos); got != tt.want {
				t.Errorf("utf16Col(%v) = %d, want %d", tt.pos, got, tt.want)
			}
			if got := shared.utf16Col(f, tt.pos); got != tt.want {
				t.Errorf("utf16Col(%v) after others = %d, want %d", tt.pos, got, tt.want)
			}
		}
	}
}

func TestArtifactURI(t *testing.T) {
	tests := []struct{ name, want string }{
		{"plan.json", "plan.json"},
		{"plans/a b.json", "plans/a%20b.json"},
		{"-", "-"},
		{"/tmp/x/plan.json", "file:///tmp/x/plan.json"},
		{"a:b.json", "./a:b.json"},
	}
	for _, tt := range tests {
		if got := artifactURI(tt.name); got != tt.want {
			t.Errorf("artifactURI(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}
