package diag

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/rivo/uniseg"

	"github.com/planc/planc/internal/termtext"
)

// Long lines (a minified plan is one line) are shown as a window of at most
// maxSnippetCells terminal cells, starting snippetLead cells before the span.
const (
	maxSnippetCells = 160
	snippetLead     = 40
)

// cluster is one grapheme cluster of a source line (one user-perceived
// character, e.g. a letter and its accents, a family emoji, a flag) as the
// text renderer shows it.
type cluster struct {
	off, n int // its bytes in the line: [off, off+n)
	cells  int // terminal cells it takes (a tab counts 1; it is kept as a tab)
	show   byte
}

// How a cluster is shown.
const (
	showText    = iota // its own bytes
	showTab            // a tab, kept so that it lines up whatever the tab width
	showReplace        // U+FFFD, for what must not reach a terminal
)

// line is one source line and how far the renderer has read it. The
// cursor moves forward only: diagnostics in Sort's order read each line
// once, whatever their number.
type line struct {
	text  []byte
	start int // offset of text in the file
	wide  int // 1 when the line is over maxSnippetCells, 0 when not, -1 unknown

	pos   int       // the cursor: clusters before it are read
	state int       // uniseg's state at pos
	lead  []cluster // the last clusters before pos, enough for a window's lead
	cells int       // the cells of lead
	gone  bool      // clusters before lead[0] were dropped
}

func (ln *line) len() int { return len(ln.text) }

// rewind puts the cursor back at the start of the line.
func (ln *line) rewind() {
	ln.pos, ln.state, ln.lead, ln.cells, ln.gone = 0, -1, ln.lead[:0], 0, false
}

// next returns the cluster at pos, read with state, and the state after it.
func (ln *line) next(pos, state int) (cluster, int) {
	c, state := nextCluster(ln.text[pos:], state)
	c.off = pos
	return c, state
}

// nextCluster returns the first cluster of text, read with uniseg's
// state, and the state after it.
func nextCluster(text []byte, state int) (cluster, int) {
	cl, _, w, state := uniseg.FirstGraphemeCluster(text, state)
	c := cluster{n: len(cl), cells: w}
	switch {
	case len(cl) == 1 && cl[0] == '\t':
		c.show, c.cells = showTab, 1
	case unprintable(cl):
		c.show, c.cells = showReplace, 1
	}
	return c, state
}

// Width is how many terminal cells s takes as WriteText shows it: by
// grapheme cluster, a tab and what is shown as U+FFFD taking one.
func Width(s string) int {
	text, state, cells := []byte(s), -1, 0
	for len(text) > 0 {
		var c cluster
		c, state = nextCluster(text, state)
		cells += c.cells
		text = text[c.n:]
	}
	return cells
}

// isWide reports whether the line takes more than maxSnippetCells cells.
// It reads at most that many cells of it, once.
func (ln *line) isWide() bool {
	if ln.wide < 0 {
		ln.wide = 0
		for pos, state, cells := 0, -1, 0; pos < len(ln.text); {
			var c cluster
			c, state = ln.next(pos, state)
			if cells += c.cells; cells > maxSnippetCells {
				ln.wide = 1
				break
			}
			pos += c.n
		}
	}
	return ln.wide == 1
}

// advance moves the cursor to the cluster holding byte start (or the end
// of the line), keeping in lead the clusters a window's lead may show:
// those within snippetLead cells of the cursor, and the one beyond.
func (ln *line) advance(start int) {
	if start < ln.pos {
		ln.rewind() // out of Sort's order: read the line again
	}
	for ln.pos < len(ln.text) {
		c, state := ln.next(ln.pos, ln.state)
		if c.off+c.n > start {
			return
		}
		ln.pos, ln.state = ln.pos+c.n, state
		ln.lead = append(ln.lead, c)
		ln.cells += c.cells
		drop := 0
		for len(ln.lead)-drop > 1 && ln.cells-ln.lead[drop].cells > snippetLead {
			ln.cells -= ln.lead[drop].cells
			drop++
		}
		if drop > 0 {
			ln.gone = true
			ln.lead = append(ln.lead[:0], ln.lead[drop:]...)
		}
	}
}

// snippet writes the line as shown under a diagnostic to b and returns the
// caret line marking bytes [start, end) of it: "^" under the
// span's first character, then "~" under the rest, at least one "^".
// Positions count bytes but terminals count cells, so both are built by
// grapheme cluster: a tab stays a tab, anything else becomes as many
// spaces as the cluster takes cells (github.com/rivo/uniseg's widths).
// Control characters, bidirectional controls and invalid UTF-8 are shown
// as U+FFFD. A line of more than maxSnippetCells cells is shown as a
// window of that many, from snippetLead cells before the span, with "…"
// where it is cut.
func (ln *line) snippet(b *bytes.Buffer, start, end int) (caret string) {
	var before []cluster // the clusters shown before the span's
	cut := false         // the window starts after the line's start
	budget := -1         // the window's cells; -1: the whole line
	pos, state := 0, -1
	if ln.isWide() {
		ln.advance(start)
		k, lead := len(ln.lead), 0
		for k > 0 && lead+ln.lead[k-1].cells <= snippetLead {
			k--
			lead += ln.lead[k].cells
		}
		before, cut = ln.lead[k:], ln.gone || k > 0
		budget = maxSnippetCells - lead
		pos, state = ln.pos, ln.state
	} else {
		for pos < len(ln.text) {
			c, st := ln.next(pos, state)
			if c.off+c.n > start {
				break
			}
			before = append(before, c)
			pos, state = pos+c.n, st
		}
	}
	var cb strings.Builder
	if cut {
		b.WriteString("…")
		cb.WriteByte(' ')
	}
	for _, c := range before {
		ln.write(b, c)
		if c.show == showTab {
			cb.WriteByte('\t')
		} else {
			cb.WriteString(strings.Repeat(" ", c.cells))
		}
	}
	marked := 0 // the cells under the span
	for pos < len(ln.text) {
		c, st := ln.next(pos, state)
		if budget >= 0 && c.cells > budget {
			b.WriteString("…")
			break
		}
		budget -= c.cells
		ln.write(b, c)
		if c.off < end {
			marked += c.cells
		}
		pos, state = pos+c.n, st
	}
	cb.WriteByte('^')
	cb.WriteString(strings.Repeat("~", max(marked, 1)-1))
	return cb.String()
}

// write writes c as it is shown.
func (ln *line) write(b *bytes.Buffer, c cluster) {
	switch c.show {
	case showReplace:
		b.WriteString("\uFFFD")
	default:
		b.Write(ln.text[c.off : c.off+c.n])
	}
}

// unprintable reports whether a cluster must not reach a terminal as it
// is: invalid UTF-8, or an Unprintable character (a grapheme cluster
// never joins those to anything else).
func unprintable(cl []byte) bool {
	for len(cl) > 0 {
		r, n := utf8.DecodeRune(cl)
		if r == utf8.RuneError && n == 1 || Unprintable(r) {
			return true
		}
		cl = cl[n:]
	}
	return false
}

// Unprintable reports whether r must not reach a terminal as it is
// (termtext.Unsafe): C0 and C1 controls, the line and paragraph
// separators, and the bidirectional controls that reorder what follows.
func Unprintable(r rune) bool { return termtext.Unsafe(r) }
