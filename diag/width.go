package main

import (
	"unicode"
	"unicode/utf8"
)

// seg is one character of a source line as the text renderer shows it.
type seg struct {
	off   int    // byte offset in the line
	text  string // what is printed for it
	cells int    // terminal cells it takes (a tab counts 1; it is kept as a tab)
}

// segments splits line into characters for display.
func segments(line []byte) []seg {
	segs := make([]seg, 0, len(line))
	for i := 0; i < len(line); {
		r, n := utf8.DecodeRune(line[i:])
		s := seg{off: i, text: string(line[i : i+n]), cells: runeCells(r)}
		switch {
		case r == '\t':
			s.cells = 1
		case r == utf8.RuneError && n == 1, unprintable(r):
			s.text, s.cells = "\uFFFD", 1
		}
		segs = append(segs, s)
		i += n
	}
	return segs
}

// unprintable reports whether r must not reach a terminal as it is: C0 and
// C1 controls, and the bidirectional controls that reorder what follows.
func unprintable(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// runeCells approximates how many terminal cells r takes: 0 for combining
// and format characters, 2 for East Asian wide and fullwidth characters and
// emoji, 1 otherwise.
func runeCells(r rune) int {
	if r < 0x300 {
		return 1
	}
	if unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf) {
		return 0
	}
	for _, w := range wideRanges {
		if r < w[0] {
			break
		}
		if r <= w[1] {
			return 2
		}
	}
	return 1
}

// wideRanges are the main East Asian Wide (W) and Fullwidth (F) blocks,
// sorted.
var wideRanges = [...][2]rune{
	{0x1100, 0x115f},   // Hangul Jamo initials
	{0x231a, 0x231b},   // watch, hourglass
	{0x2329, 0x232a},   // angle brackets
	{0x23e9, 0x23ec},   // media buttons
	{0x23f0, 0x23f0},   // alarm clock
	{0x23f3, 0x23f3},   // hourglass
	{0x25fd, 0x25fe},   // squares
	{0x2614, 0x2615},   // umbrella, hot beverage
	{0x2648, 0x2653},   // zodiac
	{0x267f, 0x267f},   // wheelchair
	{0x2693, 0x2693},   // anchor
	{0x26a1, 0x26a1},   // high voltage
	{0x26aa, 0x26ab},   // circles
	{0x26bd, 0x26be},   // balls
	{0x26c4, 0x26c5},   // snowman, sun
	{0x26ce, 0x26ce},   // ophiuchus
	{0x26d4, 0x26d4},   // no entry
	{0x26ea, 0x26ea},   // church
	{0x26f2, 0x26f5},   // fountain … sailboat
	{0x26fa, 0x26fa},   // tent
	{0x26fd, 0x26fd},   // fuel pump
	{0x2705, 0x2705},   // check mark
	{0x270a, 0x270b},   // fists
	{0x2728, 0x2728},   // sparkles
	{0x274c, 0x274c},   // cross mark
	{0x274e, 0x274e},   // cross mark
	{0x2753, 0x2755},   // question marks
	{0x2757, 0x2757},   // exclamation mark
	{0x2795, 0x2797},   // plus, minus, division
	{0x27b0, 0x27b0},   // curly loop
	{0x27bf, 0x27bf},   // double curly loop
	{0x2b1b, 0x2b1c},   // large squares
	{0x2b50, 0x2b50},   // star
	{0x2b55, 0x2b55},   // circle
	{0x2e80, 0x303e},   // CJK radicals … CJK symbols
	{0x3041, 0x33ff},   // kana … CJK compatibility
	{0x3400, 0x4dbf},   // CJK extension A
	{0x4e00, 0x9fff},   // CJK unified ideographs
	{0xa000, 0xa4cf},   // Yi
	{0xa960, 0xa97f},   // Hangul Jamo extended A
	{0xac00, 0xd7a3},   // Hangul syllables
	{0xf900, 0xfaff},   // CJK compatibility ideographs
	{0xfe10, 0xfe19},   // vertical forms
	{0xfe30, 0xfe6f},   // CJK compatibility forms, small forms
	{0xff00, 0xff60},   // fullwidth forms
	{0xffe0, 0xffe6},   // fullwidth signs
	{0x16fe0, 0x18cff}, // Tangut, Khitan
	{0x1b000, 0x1b2ff}, // kana supplement, Nushu
	{0x1f004, 0x1f004}, // mahjong tile
	{0x1f0cf, 0x1f0cf}, // joker
	{0x1f18e, 0x1f18e}, // AB button
	{0x1f191, 0x1f19a}, // squared words
	{0x1f200, 0x1f2ff}, // enclosed ideographic supplement
	{0x1f300, 0x1f64f}, // pictographs, emoticons
	{0x1f680, 0x1f6ff}, // transport and map symbols
	{0x1f7e0, 0x1f7eb}, // coloured circles and squares
	{0x1f90c, 0x1f9ff}, // supplemental symbols and pictographs
	{0x1fa70, 0x1faff}, // symbols and pictographs extended A
	{0x20000, 0x3fffd}, // CJK extensions B and later
}
