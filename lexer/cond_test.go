package lexer_test

import (
	"testing"

	plexer "github.com/alecthomas/participle/v2/lexer"
	"github.com/google/go-cmp/cmp"
	"github.com/planc/planc/lexer"
)

type tok struct {
	Type  plexer.TokenType
	Value string
	Off   int
}

func lex(text string) []tok {
	var out []tok
	for _, t := range lexer.AppendCondTokens(nil, text) {
		out = append(out, tok{t.Type, t.Value, t.Pos.Offset})
	}
	return out
}

// TestCondTokens: S10's tokens, with operators and the other quote inside a
// literal kept as text, and every malformed piece turned into a token of its
// own instead of a lexer error.
func TestCondTokens(t *testing.T) {
	tests := []struct {
		text string
		want []tok
	}{
		{`$a.status=='x'`, []tok{{lexer.CondRef, "$a.status", 0}, {lexer.CondOp, "==", 9}, {lexer.CondString, "'x'", 11}, {lexer.CondEOF, "", 14}}},
		{` "a || 'b" != $c-1.output `, []tok{{lexer.CondString, `"a || 'b"`, 1}, {lexer.CondOp, "!=", 11}, {lexer.CondRef, "$c-1.output", 14}, {lexer.CondEOF, "", 26}}},
		{`x >= 10 && !(y)`, []tok{{lexer.CondWord, "x", 0}, {lexer.CondOp, ">=", 2}, {lexer.CondWord, "10", 5}, {lexer.CondOp, "&&", 8}, {lexer.CondOp, "!", 11}, {lexer.CondOp, "(", 12}, {lexer.CondWord, "y", 13}, {lexer.CondOp, ")", 14}, {lexer.CondEOF, "", 15}}},
		{`'open`, []tok{{lexer.CondUnterminated, "'open", 0}, {lexer.CondEOF, "", 5}}},
		{"# \xff", []tok{{lexer.CondBad, "#", 0}, {lexer.CondBad, "\xff", 2}, {lexer.CondEOF, "", 3}}},
		{"a | b & c = d", []tok{{lexer.CondWord, "a", 0}, {lexer.CondOp, "|", 2}, {lexer.CondWord, "b", 4}, {lexer.CondOp, "&", 6}, {lexer.CondWord, "c", 8}, {lexer.CondOp, "=", 10}, {lexer.CondWord, "d", 12}, {lexer.CondEOF, "", 13}}},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, lex(tc.text)); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tc.text, diff)
		}
	}
}

// TestCondLexerDefinition: the participle definition yields the same tokens
// as AppendCondTokens.
func TestCondLexerDefinition(t *testing.T) {
	const text = `$a.status == 'failed' || $b.output < "9"`
	l, err := lexer.Cond.LexString("", text)
	if err != nil {
		t.Fatal(err)
	}
	var got []tok
	for {
		tk, err := l.Next()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, tok{tk.Type, tk.Value, tk.Pos.Offset})
		if tk.Type == lexer.CondEOF {
			break
		}
	}
	if diff := cmp.Diff(lex(text), got); diff != "" {
		t.Errorf("(-AppendCondTokens +Lex):\n%s", diff)
	}
}
