package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/ast"
)

func TestSnippet(t *testing.T) {
	long := strings.Repeat("a", 100) + "TARGET" + strings.Repeat("b", 200)
	tests := []struct {
		name       string
		line       string
		start, end int
		text       string
		caret      string
	}{
		{name: "ascii", line: `"x": 1`, start: 0, end: 3, text: `"x": 1`, caret: "^~~"},
		{name: "empty span", line: "abc", start: 1, end: 1, text: "abc", caret: " ^"},
		{name: "span at the end of the line", line: "abc", start: 3, end: 3, text: "abc", caret: "   ^"},
		{name: "empty line", line: "", start: 0, end: 0, text: "", caret: "^"},
		{name: "two-byte letters", line: `"é": "ü"`, start: 6, end: 10, text: `"é": "ü"`, caret: "     ^~~"},
		{name: "wide characters", line: `"日本": 1`, start: 10, end: 11, text: `"日本": 1`, caret: "        ^"},
		{name: "wide characters in the span", line: `"日本"`, start: 0, end: 8, text: `"日本"`, caret: "^~~~~~"},
		{name: "emoji", line: `"😀" x`, start: 7, end: 8, text: `"😀" x`, caret: "     ^"},
		{name: "combining mark", line: "e\u0301 x", start: 4, end: 5, text: "e\u0301 x", caret: "  ^"},
		{name: "tabs before the span", line: "\t\tab\tc", start: 5, end: 6, text: "\t\tab\tc", caret: "\t\t  \t^"},
		{name: "tab inside the span", line: "a\tb", start: 0, end: 3, text: "a\tb", caret: "^~~"},
		{name: "control character", line: "a\x01b", start: 2, end: 3, text: "a\uFFFDb", caret: "  ^"},
		{name: "invalid UTF-8", line: "a\xffb", start: 1, end: 2, text: "a\uFFFDb", caret: " ^"},
		{name: "bidirectional override", line: "a\u202eb", start: 4, end: 5, text: "a\uFFFDb", caret: "  ^"},
		{
			name: "long line: window around the span", line: long, start: 100, end: 106,
			text:  "…" + strings.Repeat("a", 40) + "TARGET" + strings.Repeat("b", 114) + "…",
			caret: strings.Repeat(" ", 41) + "^~~~~~",
		},
		{
			name: "long line: span near the start", line: long, start: 2, end: 3,
			text:  strings.Repeat("a", 100) + "TARGET" + strings.Repeat("b", 54) + "…",
			caret: "  ^",
		},
		{
			name: "long line: span longer than the window", line: long, start: 100, end: 306,
			text:  "…" + strings.Repeat("a", 40) + "TARGET" + strings.Repeat("b", 114) + "…",
			caret: strings.Repeat(" ", 41) + "^" + strings.Repeat("~", 119),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, caret := snippet([]byte(tt.line), tt.start, tt.end)
			if diff := cmp.Diff([2]string{tt.text, tt.caret}, [2]string{text, caret}); diff != "" {
				t.Errorf("snippet(%q, %d, %d) (-want +got):\n%s", tt.line, tt.start, tt.end, diff)
			}
		})
	}
}

func TestLineAt(t *testing.T) {
	src := []byte("first\r\nsecond\nthird")
	tests := []struct {
		name  string
		pos   ast.Pos
		line  string
		start int
	}{
		{"first line", ast.Pos{Offset: 2, Line: 1, Col: 3}, "first", 0},
		{"second line", ast.Pos{Offset: 9, Line: 2, Col: 3}, "second", 7},
		{"last line without a newline", ast.Pos{Offset: 14, Line: 3, Col: 1}, "third", 14},
		{"end of the file", ast.Pos{Offset: 19, Line: 3, Col: 6}, "third", 14},
		{"offset disagrees: found by line", ast.Pos{Offset: 999, Line: 2, Col: 1}, "second", 7},
		{"line past the end", ast.Pos{Offset: 999, Line: 9, Col: 1}, "", 19},
	}
	for _, tt := range tests {
		line, start := lineAt(src, tt.pos)
		if string(line) != tt.line || start != tt.start {
			t.Errorf("%s: lineAt(%v) = %q, %d; want %q, %d", tt.name, tt.pos, line, start, tt.line, tt.start)
		}
	}
}

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
	}
	for _, tt := range tests {
		if got := utf16Col(src, tt.pos); got != tt.want {
			t.Errorf("utf16Col(%v) = %d, want %d", tt.pos, got, tt.want)
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

func TestWriteTextNoPosition(t *testing.T) {
	var b strings.Builder
	d := fileDiag{file: &source{name: "m.json"}, Diagnostic: ast.Diagnostic{Severity: ast.Warning, Code: "x", Message: "no position"}}
	if err := writeText(&b, []fileDiag{d}); err != nil {
		t.Fatal(err)
	}
	if want := "m.json: warning: no position [x]\n"; b.String() != want {
		t.Errorf("writeText = %q, want %q", b.String(), want)
	}
}
