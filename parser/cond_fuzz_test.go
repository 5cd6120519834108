package parser

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/ast"
)

// FuzzParseCond checks, for any text, that ParseCond (semantics S10):
//   - never panics, and returns exactly one of a tree and a refusal;
//   - gives a refusal a message in the house style and a span inside the text;
//   - takes the fast path for every condition it accepts, and builds there
//     the very tree the participle grammar builds;
//   - round-trips: FormatCond of the tree parses again to a tree with the
//     same FormatCond, equal to the first but for spans;
//   - places every operand's span on its own text.
func FuzzParseCond(f *testing.F) {
	for _, s := range []string{
		"$check.status == 'failed'",
		`$a.status == 'failed' || $b.status == "failed" && $c.output != ''`,
		`$a.output == '&& || == != ( ) !' && "it's" < $b.output`,
		" \t$a.status=='x'||$b.status!='y'\n",
		"$a.status", "$a.status ==", "$a.status == 'x' ||", "a == b == c",
		"$a.status == $b.status == 'x'", "($a.status == 'x')", "!$a.status == 'x'",
		"$a.output >= '5'", "$a.output == 10", "$a.status == failed", "$a == 'x'",
		"$a.b.c == 'x'", "$a.status == 'x", `$a.status == "x`, "$a.status = 'x'",
		"$a.status == 'x' & $b.status == 'y'", "$a.status == 'x' | $b.status == 'y'",
		"$a.status == 'x' and $b.status == 'y'", "$a.status # 'x'", "\xff\x00", "",
		"== 'x'", "$a.status 'x'", "$a.x == 'é' && $b-1_c.foo < 'z'",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		c, err := ParseCond(text, condSrc1)
		if (c == nil) == (err == nil) {
			t.Fatalf("ParseCond(%q) = %v, %v: want exactly one", text, c, err)
		}
		if err != nil {
			checkCondError(t, text, err)
			return
		}
		// The fast path with nodes from slabs, as ParsePlan parses a
		// plan's conditions, must build the grammar's tree too.
		f, ok := fastCond(text, condSrc1, &nodes{})
		if !ok {
			t.Fatalf("ParseCond(%q) accepted a condition the fast path declines", text)
		}
		g, gerr := parseCondGrammar(text, condSrc1)
		if gerr != nil {
			t.Fatalf("ParseCond(%q) accepted what the grammar refuses: %s", text, gerr.Message)
		}
		if diff := cmp.Diff(c, g, refParts); diff != "" {
			t.Fatalf("fast path and grammar differ on %q (-fast +grammar):\n%s", text, diff)
		}
		if diff := cmp.Diff(f, g, refParts); diff != "" {
			t.Fatalf("fast path with slabs and grammar differ on %q (-fast +grammar):\n%s", text, diff)
		}
		checkCondSpans(t, text, c)
		formatted := ast.FormatCond(c)
		c2, err2 := ParseCond(formatted, condSrc1)
		if err2 != nil {
			t.Fatalf("FormatCond(ParseCond(%q)) = %q does not parse: %s", text, formatted, err2.Message)
		}
		if again := ast.FormatCond(c2); again != formatted {
			t.Fatalf("round trip of %q: %q, then %q", text, formatted, again)
		}
		if diff := cmp.Diff(c, c2, condIgnoreSpans); diff != "" {
			t.Fatalf("round trip of %q changed the tree (-first +second):\n%s", text, diff)
		}
	})
}

// checkCondError checks a refusal's span and its message's style: lowercase
// start, no trailing period, a colon before the fix.
func checkCondError(t *testing.T, text string, err *ast.CondError) {
	t.Helper()
	s, e := int(err.Span.Start), int(err.Span.End)
	if s < 0 || s > e || e > len(text) {
		t.Fatalf("ParseCond(%q): span %v (%d-%d) outside the text", text, err.Span, s, e)
	}
	if s == e && strings.TrimSpace(text) != "" {
		t.Errorf("ParseCond(%q): empty span for %q", text, err.Message)
	}
	m := err.Message
	if r, _ := utf8.DecodeRuneInString(m); m == "" || unicode.IsUpper(r) || strings.HasSuffix(m, ".") || !strings.Contains(m, ": ") {
		t.Errorf("ParseCond(%q): message %q is not in the house style", text, m)
	}
}

// checkCondSpans checks that every node's span covers its own text, with
// condSrc1 (decoded offsets are file offsets).
func checkCondSpans(t *testing.T, text string, c ast.Cond) {
	t.Helper()
	at := func(s ast.Range) string { return text[s.Start:s.End] }
	switch c := c.(type) {
	case *ast.Logical:
		checkCondSpans(t, text, c.X)
		checkCondSpans(t, text, c.Y)
		if sp := c.CondSpan(); at(c.OpSpan) != c.Op.String() || sp.Start > c.OpSpan.Start || sp.End < c.OpSpan.End {
			t.Fatalf("ParseCond(%q): logical spans %v %v", text, c.OpSpan, sp)
		}
	case *ast.Compare:
		if sp := c.CondSpan(); at(c.OpSpan) != c.Op.String() || sp.Start > c.OpSpan.Start || sp.End < c.OpSpan.End {
			t.Fatalf("ParseCond(%q): comparison spans %v %v", text, c.OpSpan, sp)
		}
		for _, o := range []ast.Operand{c.X, c.Y} {
			var want string
			switch o := o.(type) {
			case *ast.Ref:
				want = o.String()
			case *ast.Literal:
				want = string(o.Quote) + o.Value + string(o.Quote)
			}
			if at(o.OperandSpan()) != want {
				t.Fatalf("ParseCond(%q): operand %q has span text %q", text, want, at(o.OperandSpan()))
			}
			if r, ok := o.(*ast.Ref); ok && (!r.InIf || at(r.IDSpan()) != r.StepID || at(r.FieldSpan()) != r.FieldName) {
				t.Fatalf("ParseCond(%q): reference %+v", text, r)
			}
		}
	}
}
