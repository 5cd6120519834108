package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/mattn/go-runewidth"
)

// screen is a terminal of cols columns as far as the live view drives
// one: printable characters, CR, LF, and the CSI sequences F (to the start
// of an earlier line), K (erase the line) and J (erase below). Its lines
// are kept whole, scrolled-off ones too; wrapped counts the lines that
// were wider than the terminal.
type screen struct {
	cols     int
	lines    [][]rune
	row, col int
	wrapped  int
	escapes  int
}

// feed drives the screen with out; it fails t on an escape sequence the
// live view does not use.
func (s *screen) feed(t *testing.T, out string) {
	t.Helper()
	rs := []rune(out)
	for i := 0; i < len(rs); i++ {
		switch r := rs[i]; {
		case r == '\r':
			s.col = 0
		case r == '\n':
			s.row++
		case r == 0x1b:
			s.escapes++
			j := i + 1
			if j >= len(rs) || rs[j] != '[' {
				t.Fatalf("escape without [ at %d: %q", i, out[max(0, i-10):])
			}
			j++
			for j < len(rs) && (rs[j] >= '0' && rs[j] <= '9' || rs[j] == ';') {
				j++
			}
			if j >= len(rs) {
				t.Fatalf("unfinished escape sequence at the end")
			}
			n, _ := strconv.Atoi(string(rs[i+2 : j]))
			switch rs[j] {
			case 'F':
				s.row, s.col = max(0, s.row-max(n, 1)), 0
			case 'K':
				s.line()
				s.lines[s.row] = nil
			case 'J':
				s.line()
				s.lines[s.row] = s.lines[s.row][:min(len(s.lines[s.row]), s.col)]
				s.lines = s.lines[:s.row+1]
			default:
				t.Fatalf("escape sequence %q: the live view uses only F, K and J", string(rs[i:j+1]))
			}
			i = j
		case r < 0x20:
			t.Fatalf("control character %q in the view", r)
		default:
			w := runewidth.RuneWidth(r)
			if s.col+w > s.cols {
				s.wrapped++
				s.row, s.col = s.row+1, 0
			}
			l := s.line()
			for len(*l) < s.col+w {
				*l = append(*l, ' ')
			}
			(*l)[s.col] = r
			if w == 2 {
				(*l)[s.col+1] = 0
			}
			s.col += w
		}
	}
}

// line returns the cursor's line, made if need be.
func (s *screen) line() *[]rune {
	for len(s.lines) <= s.row {
		s.lines = append(s.lines, nil)
	}
	return &s.lines[s.row]
}

// text returns the screen's lines, trailing spaces cut, times normalised.
func (s *screen) text() []string {
	var out []string
	for _, l := range s.lines {
		out = append(out, normaliseTimes(strings.TrimRight(strings.ReplaceAll(string(l), "\x00", ""), " ")))
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}
