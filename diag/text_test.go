package diag

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/ast"
)

// snippet is what WriteText shows of line for a span [start, end) of it.
func snippet(text []byte, start, end int) (string, string) {
	ln := &line{text: text, wide: -1}
	ln.rewind()
	var b bytes.Buffer
	caret := ln.snippet(&b, start, end)
	return b.String(), caret
}

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
		{name: "family emoji: one cluster, two cells", line: "\"\U0001F468\u200D\U0001F469\u200D\U0001F467\" x", start: 21, end: 22, text: "\"\U0001F468\u200D\U0001F469\u200D\U0001F467\" x", caret: "     ^"},
		{name: "flag: one cluster, two cells", line: "\"\U0001F1EB\U0001F1F7\" x", start: 11, end: 12, text: "\"\U0001F1EB\U0001F1F7\" x", caret: "     ^"},
		{name: "span inside a cluster: under the cluster", line: "ae\u0301b", start: 2, end: 3, text: "ae\u0301b", caret: " ^"},
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

func TestWriteTextNoPosition(t *testing.T) {
	var b strings.Builder
	d := Diagnostic{File: &File{Name: "m.json"}, Diagnostic: ast.Diagnostic{Severity: ast.Warning, Code: "x", Message: "no position"}}
	if err := WriteText(&b, []Diagnostic{d}); err != nil {
		t.Fatal(err)
	}
	if want := "m.json: warning: no position [x]\n"; b.String() != want {
		t.Errorf("WriteText = %q, want %q", b.String(), want)
	}
}

// TestWriteTextBatch: many diagnostics on one long line, in Sort's order
// or not, render exactly as each does alone: what the renderer keeps of a
// line between diagnostics changes nothing but the work.
func TestWriteTextBatch(t *testing.T) {
	unit := "{\"id\":\"é\U0001F468\u200D\U0001F469\u200D\U0001F467\t日\",\"tool\":\"x\"},"
	src := []byte(strings.Repeat(unit, 200) + "\n" + strings.Repeat("ab", 30) + "\n")
	f := &File{Name: "p.json", Src: src}
	rng := rand.New(rand.NewPCG(1, 2))
	var ds []Diagnostic
	for range 300 {
		off := rng.IntN(len(src) - 1)
		for !utf8.RuneStart(src[off]) {
			off--
		}
		ln, ls := lineAt(src, posAt(src, off))
		end := off + rng.IntN(min(20, ls+len(ln)-off+1))
		ds = append(ds, Diagnostic{File: f, Diagnostic: ast.Diagnostic{Span: ast.Span{Start: posAt(src, off), End: posAt(src, end)}, Code: "c", Message: "m"}})
	}
	for _, order := range []string{"as given", "sorted"} {
		if order == "sorted" {
			Sort(ds)
		}
		var want strings.Builder
		for _, d := range ds {
			if err := WriteText(&want, []Diagnostic{d}); err != nil {
				t.Fatal(err)
			}
		}
		var got strings.Builder
		if err := WriteText(&got, ds); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want.String(), got.String()); diff != "" {
			t.Errorf("%s: batch differs from one at a time (-want +got):\n%s", order, diff)
		}
	}
}

// posAt is the position of byte off of src.
func posAt(src []byte, off int) ast.Pos {
	ls := bytes.LastIndexByte(src[:off], '\n') + 1
	return ast.Pos{Offset: int32(off), Line: int32(bytes.Count(src[:off], []byte("\n")) + 1), Col: int32(off - ls + 1)}
}
