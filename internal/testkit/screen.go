package testkit

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mattn/go-runewidth"
)

// Screen is a terminal of Cols columns as far as planc's live view
// (internal/progress) drives one: printable characters, CR, LF, and the CSI sequences F (to the start
// of an earlier line), K (erase the line) and J (erase below). Its lines
// are kept whole, scrolled-off ones too; Wrapped counts the lines that
// were wider than the terminal, Escapes the escape sequences.
type Screen struct {
	Cols     int
	Lines    [][]rune // the lines, each a rune per cell (0 after a wide one)
	row, col int
	Wrapped  int
	Escapes  int
}

// Feed drives the screen with out; it fails t on an escape sequence the
// live view does not use.
func (s *Screen) Feed(t *testing.T, out string) {
	t.Helper()
	rs := []rune(out)
	for i := 0; i < len(rs); i++ {
		switch r := rs[i]; {
		case r == '\r':
			s.col = 0
		case r == '\n':
			s.row++
		case r == 0x1b:
			s.Escapes++
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
				s.Lines[s.row] = nil
			case 'J':
				s.line()
				s.Lines[s.row] = s.Lines[s.row][:min(len(s.Lines[s.row]), s.col)]
				s.Lines = s.Lines[:s.row+1]
			default:
				t.Fatalf("escape sequence %q: the live view uses only F, K and J", string(rs[i:j+1]))
			}
			i = j
		case r < 0x20:
			t.Fatalf("control character %q in the view", r)
		default:
			w := runewidth.RuneWidth(r)
			if s.col+w > s.Cols {
				s.Wrapped++
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
func (s *Screen) line() *[]rune {
	for len(s.Lines) <= s.row {
		s.Lines = append(s.Lines, nil)
	}
	return &s.Lines[s.row]
}

// Text returns the screen's lines, trailing spaces cut, times normalised
// (NormaliseTimes).
func (s *Screen) Text() []string {
	var out []string
	for _, l := range s.Lines {
		out = append(out, NormaliseTimes(strings.TrimRight(strings.ReplaceAll(string(l), "\x00", ""), " ")))
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// The lines view's times: the leading time since the start and a step's
// duration.
var (
	leadTime = regexp.MustCompile(`(?m)^ *\d+\.\d\ds  `)
	stepTime = regexp.MustCompile(` \d+\.\ds\b| \d+m\d\ds\b`)
)

// NormaliseTimes replaces the times of the progress views' output with
// fixed ones, so that it can be compared with a golden text.
func NormaliseTimes(s string) string {
	s = leadTime.ReplaceAllString(s, "   0.00s  ")
	return stepTime.ReplaceAllString(s, " 0.0s")
}
