// Package lexer holds planc's participle lexer definitions: the token types
// and the scanner of an `if` condition (semantics S10), which the parser
// hands to its participle grammar.
//
// The condition lexer is hand-written rather than built with
// lexer.MustSimple: the regexp-driven stateful lexer tries every rule's
// expression at every token and allocates for each, which alone costs
// several microseconds per condition, while a plan may hold 100,000 of them.
// It implements participle's lexer.Definition and lexer.StringDefinition, so
// the parser can use it like any other participle lexer.
//
// The lexer never fails on any text: anything it does not recognise becomes a CondBad
// token and an unclosed quote a CondUnterminated token, so the parser can
// report each with a message that names the fix. Its token types are a
// superset of what the grammar allows (numbers, unquoted words, `!`, `=`,
// `>=`, parentheses…) for the same reason.
package lexer

import (
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	plexer "github.com/alecthomas/participle/v2/lexer"
)

// The token types of a condition. Offsets in the tokens' Pos are byte
// offsets into the condition text; Line is 1 and Column is Offset+1.
const (
	CondEOF          = plexer.EOF
	CondRef          = plexer.EOF - 1 - iota // `$` followed by [A-Za-z0-9_.-]*, well formed or not
	CondString                               // a quoted literal, quotes included
	CondUnterminated                         // a quote with no closing quote: the rest of the text
	CondWord                                 // a run of letters, digits, `_`, `.`, `-`: a number or an unquoted word
	CondOp                                   // an operator or a parenthesis, valid or not
	CondBad                                  // one unexpected character, or one byte of invalid UTF-8
)

var condSymbols = map[string]plexer.TokenType{
	"EOF":          CondEOF,
	"Ref":          CondRef,
	"String":       CondString,
	"Unterminated": CondUnterminated,
	"Word":         CondWord,
	"Op":           CondOp,
	"Bad":          CondBad,
}

// CondDefinition is the participle lexer definition of condition tokens.
// White space (space, tab, CR, LF) separates tokens and is not emitted.
type CondDefinition struct{}

// Cond is the condition lexer definition, ready to pass to
// participle.Lexer.
var Cond CondDefinition

// Symbols implements plexer.Definition: the token type names "Ref",
// "String", "Unterminated", "Word", "Op", "Bad" and "EOF".
func (CondDefinition) Symbols() map[string]plexer.TokenType { return condSymbols }

// Lex implements plexer.Definition.
func (d CondDefinition) Lex(filename string, r io.Reader) (plexer.Lexer, error) {
	var b strings.Builder
	if _, err := io.Copy(&b, r); err != nil {
		return nil, err
	}
	return d.LexString(filename, b.String())
}

// LexString implements plexer.StringDefinition.
func (CondDefinition) LexString(filename string, s string) (plexer.Lexer, error) {
	return &condLexer{filename: filename, text: s}, nil
}

type condLexer struct {
	filename string
	text     string
	at       int
}

// Next implements plexer.Lexer. It never returns an error.
func (l *condLexer) Next() (plexer.Token, error) {
	start := SkipCondSpace(l.text, l.at)
	typ, end := ScanCond(l.text, start)
	l.at = end
	return plexer.Token{
		Type:  typ,
		Value: l.text[start:end],
		Pos:   plexer.Position{Filename: l.filename, Offset: start, Line: 1, Column: start + 1},
	}, nil
}

// AppendCondTokens appends the tokens of text to dst, ending with one
// CondEOF token whose offset is len(text), and returns the extended slice.
func AppendCondTokens(dst []plexer.Token, text string) []plexer.Token {
	i := 0
	for {
		start := SkipCondSpace(text, i)
		typ, end := ScanCond(text, start)
		dst = append(dst, plexer.Token{
			Type:  typ,
			Value: text[start:end],
			Pos:   plexer.Position{Offset: start, Line: 1, Column: start + 1},
		})
		if typ == CondEOF {
			return dst
		}
		i = end
	}
}

// SkipCondSpace returns the offset of the first byte at or after i that is
// not white space between tokens: space, tab, CR or LF.
func SkipCondSpace(text string, i int) int {
	for i < len(text) && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r') {
		i++
	}
	return i
}

// isWordByte reports whether c belongs to a CondWord or, after `$`, to a
// CondRef: the ID and FIELD characters of semantics S6 and the dot.
func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '_' || c == '-' || c == '.'
}

// ScanCond scans the token starting at byte offset i of text (which must
// not be white space) and returns its type and the offset just past it. At
// the end of text it returns CondEOF and i.
func ScanCond(text string, i int) (plexer.TokenType, int) {
	if i >= len(text) {
		return CondEOF, len(text)
	}
	c := text[i]
	switch c {
	case '$':
		j := i + 1
		for j < len(text) && isWordByte(text[j]) {
			j++
		}
		return CondRef, j
	case '\'', '"':
		if k := strings.IndexByte(text[i+1:], c); k >= 0 {
			return CondString, i + 1 + k + 1
		}
		return CondUnterminated, len(text)
	case '=', '!', '>', '<':
		if i+1 < len(text) && text[i+1] == '=' {
			return CondOp, i + 2
		}
		return CondOp, i + 1
	case '&', '|':
		if i+1 < len(text) && text[i+1] == c {
			return CondOp, i + 2
		}
		return CondOp, i + 1
	case '(', ')':
		return CondOp, i + 1
	}
	j := i
	for j < len(text) {
		if b := text[j]; b < utf8.RuneSelf {
			if !isWordByte(b) {
				break
			}
			j++
			continue
		}
		r, n := utf8.DecodeRuneInString(text[j:])
		if r == utf8.RuneError && n == 1 || !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break
		}
		j += n
	}
	if j > i {
		return CondWord, j
	}
	if _, n := utf8.DecodeRuneInString(text[i:]); n > 1 {
		return CondBad, i + n
	}
	return CondBad, i + 1
}
