package parser

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/planc/planc/ast"
)

// condSrc1 maps condition byte i to file offset i.
var condSrc1 = CondSource{Base: 0}

// condSp is the span of bytes [i, j) under condSrc1.
func condSp(i, j int) ast.Range { return condSrc1.Span(i, j) }

// condShape renders c with every node bracketed: [comparison], (x op y).
func condShape(c ast.Cond) string {
	if l, ok := c.(*ast.Logical); ok {
		return "(" + condShape(l.X) + " " + l.Op.String() + " " + condShape(l.Y) + ")"
	}
	return "[" + ast.FormatCond(c) + "]"
}

// condIgnoreSpans compares trees by structure only.
var condIgnoreSpans = cmp.Options{cmpopts.IgnoreTypes(ast.Range{}), refParts}

// refParts compares a reference's parts' spans too (kept as offsets).
var refParts = cmp.AllowUnexported(ast.Ref{})

// TestParseCondShape covers S10: && binds tighter than ||, both are
// left-associative, both quote kinds, operators and the other quote inside
// a literal, and free white space.
func TestParseCondShape(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"S10 single comparison", `$a.status == 'failed'`, `[$a.status == 'failed']`},
		{"S10 && binds tighter than || (right)", `$a.status == 'x' || $b.status == 'y' && $c.status == 'z'`,
			`([$a.status == 'x'] || ([$b.status == 'y'] && [$c.status == 'z']))`},
		{"S10 && binds tighter than || (left)", `$a.status == 'x' && $b.status == 'y' || $c.status == 'z'`,
			`(([$a.status == 'x'] && [$b.status == 'y']) || [$c.status == 'z'])`},
		{"S10 || is left-associative", `$a.output == '1' || $b.output == '2' || $c.output == '3'`,
			`(([$a.output == '1'] || [$b.output == '2']) || [$c.output == '3'])`},
		{"S10 && is left-associative", `$a.output == '1' && $b.output == '2' && $c.output == '3'`,
			`(([$a.output == '1'] && [$b.output == '2']) && [$c.output == '3'])`},
		{"S10 mixed chain", `$a.output == '1' && $b.output == '2' || $c.output == '3' && $d.output == '4' || $e.output == '5'`,
			`((([$a.output == '1'] && [$b.output == '2']) || ([$c.output == '3'] && [$d.output == '4'])) || [$e.output == '5'])`},
		{"S11 all four comparisons", `$a.output != 'x' && 'b' > $a.output && $a.output < "z" && "q" == 'q'`,
			`((([$a.output != 'x'] && ['b' > $a.output]) && [$a.output < "z"]) && ["q" == 'q'])`},
		{"S10 double quotes", `$test.status == "failed"`, `[$test.status == "failed"]`},
		{"S10 the other quote inside", `$a.output == "it's" || $a.output != 'say "hi"'`,
			`([$a.output == "it's"] || [$a.output != 'say "hi"'])`},
		{"S10 operators inside quotes are text", `$a.output == '&& || == != >= <= > < = ! ( ) & |'`,
			`[$a.output == '&& || == != >= <= > < = ! ( ) & |']`},
		{"S10 references inside quotes are text", `$a.output == '$b.status'`, `[$a.output == '$b.status']`},
		{"S10 no white space", `$a.status=='x'&&$b.output!="y"||'1'<'2'`,
			`(([$a.status == 'x'] && [$b.output != "y"]) || ['1' < '2'])`},
		{"S10 free white space", " \t\n$a.status \r\n==\t'x' \n&&   $b.status=='y'  ",
			`([$a.status == 'x'] && [$b.status == 'y'])`},
		{"S10 white space inside a literal is kept", `$a.output == '  two  words '`, `[$a.output == '  two  words ']`},
		{"S10 empty literal", `$a.output == ''`, `[$a.output == '']`},
		{"S10 non-ASCII literal", `$a.output == 'échec ✓'`, `[$a.output == 'échec ✓']`},
		{"S6 id characters", `$Build-1_x.status == 'success'`, `[$Build-1_x.status == 'success']`},
		{"S6 other field is the checker's", `$a.result == 'x'`, `[$a.result == 'x']`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ParseCond(tt.text, condSrc1)
			if err != nil {
				t.Fatalf("ParseCond(%q): %v %s", tt.text, err.Span, err.Message)
			}
			if diff := cmp.Diff(tt.want, condShape(c)); diff != "" {
				t.Errorf("ParseCond(%q) shape (-want +got):\n%s", tt.text, diff)
			}
			// The participle grammar builds the very same tree, spans
			// included, as the fast path does.
			g, gerr := parseCondGrammar(tt.text, condSrc1)
			if gerr != nil {
				t.Fatalf("parseCondGrammar(%q): %s", tt.text, gerr.Message)
			}
			if diff := cmp.Diff(c, g, refParts); diff != "" {
				t.Errorf("fast path and grammar differ on %q (-fast +grammar):\n%s", tt.text, diff)
			}
		})
	}
}

// TestParseCondExact checks a whole tree, every span included (S10).
func TestParseCondExact(t *testing.T) {
	text := `$check.status == 'failed' || $lint.output != "ok" && 'a' < $x.foo`
	// 0         1         2         3         4         5         6
	// 0123456789012345678901234567890123456789012345678901234567890123456
	src := CondSource{Base: 100}
	s := src.Span
	refCheck := ifRef("check", "status", ast.RefStatus, s(0, 13), s(1, 6), s(7, 13))
	refLint := ifRef("lint", "output", ast.RefOutput, s(29, 41), s(30, 34), s(35, 41))
	refX := ifRef("x", "foo", ast.RefOther, s(59, 65), s(60, 61), s(62, 65))
	cmp1 := &ast.Compare{Op: ast.OpEq, X: refCheck, Y: &ast.Literal{Value: "failed", Quote: '\'', Span: s(17, 25)},
		OpSpan: s(14, 16)}
	cmp2 := &ast.Compare{Op: ast.OpNe, X: refLint, Y: &ast.Literal{Value: "ok", Quote: '"', Span: s(45, 49)},
		OpSpan: s(42, 44)}
	cmp3 := &ast.Compare{Op: ast.OpLt, X: &ast.Literal{Value: "a", Quote: '\'', Span: s(53, 56)}, Y: refX,
		OpSpan: s(57, 58)}
	want := &ast.Logical{Op: ast.OpOr, X: cmp1,
		Y:      &ast.Logical{Op: ast.OpAnd, X: cmp2, Y: cmp3, OpSpan: s(50, 52)},
		OpSpan: s(26, 28)}
	got, err := ParseCond(text, src)
	if err != nil {
		t.Fatalf("ParseCond: %s", err.Message)
	}
	if diff := cmp.Diff(ast.Cond(want), got, refParts); diff != "" {
		t.Errorf("ParseCond (-want +got):\n%s", diff)
	}
	if got := want.CondSpan().Start; got != 100 {
		t.Errorf("start = %+v", got)
	}
	// Each node's span, from its first operand's start to its last's end.
	gl := got.(*ast.Logical)
	gr := gl.Y.(*ast.Logical)
	for _, c := range []struct {
		node ast.Cond
		want ast.Range
	}{{gl, s(0, 65)}, {gl.X, s(0, 25)}, {gr, s(29, 65)}, {gr.X, s(29, 49)}, {gr.Y, s(53, 65)}} {
		if sp := c.node.CondSpan(); sp != c.want {
			t.Errorf("%s: span %v, want %v", ast.FormatCond(c.node), sp, c.want)
		}
	}
	if diff := cmp.Diff([]*ast.Ref{refCheck, refLint, refX}, ast.CondRefs(nil, got), refParts); diff != "" {
		t.Errorf("CondRefs (-want +got):\n%s", diff)
	}
}

// TestParseCondJSONEscape: spans follow CondSource.Offsets, so a reference
// after a JSON escape is reported at its column in the file. The plan holds
// "if": "\"x\" == $a.status", whose decoded text is `"x" == $a.status`.
func TestParseCondJSONEscape(t *testing.T) {
	text := `"x" == $a.status`
	raw := `\"x\" == $a.status` // as written in the file
	offsets := make([]int, len(text)+1)
	for i, j := 0, 0; i <= len(text); i++ {
		offsets[i] = j
		if i < len(text) && text[i] == '"' {
			j += 2
		} else {
			j++
		}
	}
	// The string's first byte is at offset 57.
	src := CondSource{Base: 57, Offsets: offsets}
	c, err := ParseCond(text, src)
	if err != nil {
		t.Fatalf("ParseCond: %s", err.Message)
	}
	cm := c.(*ast.Compare)
	ref := cm.Y.(*ast.Ref)
	at := int32(strings.Index(raw, "$a.status")) // 9, not 7
	wantRef := ast.Range{Start: 57 + at, End: 57 + int32(len(raw))}
	if diff := cmp.Diff(wantRef, ref.Span); diff != "" {
		t.Errorf("ref span (-want +got):\n%s", diff)
	}
	if got, want := int(ref.FieldSpan().Start), 57+strings.Index(raw, "status"); got != want {
		t.Errorf("field offset = %d, want %d", got, want)
	}
	lit := cm.X.(*ast.Literal)
	wantLit := ast.Range{Start: 57, End: 62}
	if diff := cmp.Diff(wantLit, lit.Span); diff != "" || lit.Value != "x" {
		t.Errorf("literal %q span (-want +got):\n%s", lit.Value, diff)
	}
	if got, want := int(cm.OpSpan.Start), 57+strings.Index(raw, "=="); got != want {
		t.Errorf("operator offset = %d, want %d", got, want)
	}
	// A refusal is placed the same way.
	_, cerr := ParseCond(`"x" == failed`, CondSource{Base: src.Base, Offsets: offsets[:len(`"x" == failed`)+1]})
	if cerr == nil || cerr.Span.Start != 57+9 {
		t.Errorf("refusal = %+v, want it at offset %d", cerr, 57+9)
	}
}

// TestParseCondRefusals covers every refusal of S10 (and S6's shape of a
// reference inside an if): the message names the fix, the span is exactly
// the offending text, and the first problem from the left is the one told.
func TestParseCondRefusals(t *testing.T) {
	const (
		malformed  = ": write $<step id>.output or $<step id>.status"
		parens     = "parentheses are not supported: && binds tighter than ||, so rewrite the condition without them"
		unexpected = ": remove it, or put it inside a quoted literal"
		operand    = ": add a reference or a quoted literal"
		operator   = ": compare with ==, !=, > or <, or join comparisons with && or ||"
	)
	success := "$a.status == 'success'"
	tests := []struct {
		name, text string
		want       ast.CondError
	}{
		{"S10 empty", "", ast.CondError{Span: condSp(0, 0), Suggestion: success,
			Message: "empty condition: write a comparison such as $a.status == 'success', or remove the if"}},
		{"S10 all blank", " \t\r\n ", ast.CondError{Span: condSp(0, 5), Suggestion: success,
			Message: "empty condition: write a comparison such as $a.status == 'success', or remove the if"}},
		{"S10 bare reference", "$a.status", ast.CondError{Span: condSp(0, 9), Suggestion: success,
			Message: `"$a.status" is not a condition on its own: compare it, e.g. $a.status == 'success'`}},
		{"S10 bare output before &&", "$a.output && $b.status == 'x'", ast.CondError{Span: condSp(0, 9),
			Suggestion: "$a.output != ''",
			Message:    `"$a.output" is not a condition on its own: compare it, e.g. $a.output != ''`}},
		{"S10 bare literal after ||", "$a.status == 'x' || 'y'", ast.CondError{Span: condSp(20, 23),
			Suggestion: "$<step id>.output == 'y'",
			Message:    `"'y'" is not a condition on its own: compare it, e.g. $<step id>.output == 'y'`}},
		{"S10 chained comparison", "$a.status == $b.status == 'x'", ast.CondError{Span: condSp(23, 25),
			Suggestion: "$a.status == $b.status && $b.status == 'x'",
			Message: `chained comparison: "==" cannot follow a comparison; compare two operands at a time ` +
				`and join them with &&, e.g. $a.status == $b.status && $b.status == 'x'`}},
		{"S10 chain with a bad operator", "$a.status == $b.status = 'x'", ast.CondError{Span: condSp(23, 24),
			Suggestion: "==", Message: `"=" is not an operator: use == to compare`}},
		{"S10 parentheses", "($a.status == 'x')", ast.CondError{Span: condSp(0, 1), Message: parens}},
		{"S10 parentheses after ||", "$a.status == 'x' || ($b.status == 'y')", ast.CondError{Span: condSp(20, 21), Message: parens}},
		{"S10 closing parenthesis", "$a.status == 'x')", ast.CondError{Span: condSp(16, 17), Message: parens}},
		{"S10 unclosed parenthesis", "$a.status == ('x'", ast.CondError{Span: condSp(13, 14), Message: parens}},
		{"S10 negation", "!($a.status == 'x')", ast.CondError{Span: condSp(0, 1), Suggestion: "!=",
			Message: `negation with "!" is not supported: compare with != instead`}},
		{"S10 negated operand", "$a.status == !'x'", ast.CondError{Span: condSp(13, 14), Suggestion: "!=",
			Message: `negation with "!" is not supported: compare with != instead`}},
		{"S10 >=", "$a.output >= '5'", ast.CondError{Span: condSp(10, 12),
			Suggestion: "$a.output > '5' || $a.output == '5'",
			Message:    `">=" is not an operator: write $a.output > '5' || $a.output == '5'`}},
		{"S10 <=", "'a'<=$b.output", ast.CondError{Span: condSp(3, 5),
			Suggestion: "'a' < $b.output || 'a' == $b.output",
			Message:    `"<=" is not an operator: write 'a' < $b.output || 'a' == $b.output`}},
		{"S10 >= with a number", "$a.output >= 5", ast.CondError{Span: condSp(13, 14), Suggestion: "'5'",
			Message: `unquoted number "5": conditions compare text, so quote it as '5'`}},
		{"S10 S11 number", "$a.output == 10", ast.CondError{Span: condSp(13, 15), Suggestion: "'10'",
			Message: `unquoted number "10": conditions compare text, so quote it as '10'`}},
		{"S10 S11 negative decimal", "$a.output < -1.5", ast.CondError{Span: condSp(12, 16), Suggestion: "'-1.5'",
			Message: `unquoted number "-1.5": conditions compare text, so quote it as '-1.5'`}},
		{"S10 unquoted word", "$a.status == failed", ast.CondError{Span: condSp(13, 19), Suggestion: "'failed'",
			Message: `unquoted word "failed": quote it as 'failed'`}},
		{"S10 unquoted word first", "success == $a.status", ast.CondError{Span: condSp(0, 7), Suggestion: "'success'",
			Message: `unquoted word "success": quote it as 'success'`}},
		{"S10 and", "$a.status == 'x' and $b.status == 'y'", ast.CondError{Span: condSp(17, 20), Suggestion: "&&",
			Message: `"and" is not an operator: use && (both)`}},
		{"S10 OR", "$a.status == 'x' OR $b.status == 'y'", ast.CondError{Span: condSp(17, 19), Suggestion: "||",
			Message: `"OR" is not an operator: use || (either)`}},
		{"S10 not", "not $a.status == 'x'", ast.CondError{Span: condSp(0, 3), Suggestion: "!=",
			Message: `"not" is not an operator: negate a comparison with !=`}},
		{"S6 reference without a field", "$a == 'x'", ast.CondError{Span: condSp(0, 2),
			Message: `malformed reference "$a"` + malformed}},
		{"S6 reference with two dots", "$a.b.c == 'x'", ast.CondError{Span: condSp(0, 6),
			Message: `malformed reference "$a.b.c"` + malformed}},
		{"S6 reference without an id", "'x' == $.status", ast.CondError{Span: condSp(7, 15),
			Message: `malformed reference "$.status"` + malformed}},
		{"S6 reference ending in a dot", "$a. == 'x'", ast.CondError{Span: condSp(0, 3),
			Message: `malformed reference "$a."` + malformed}},
		{"S6 dash in the field", "$a.status-x == 'x'", ast.CondError{Span: condSp(0, 11),
			Message: `malformed reference "$a.status-x"` + malformed}},
		{"S6 lone dollar", "$ == 'x'", ast.CondError{Span: condSp(0, 1),
			Message: `malformed reference "$"` + malformed}},
		{"S4 id outside the alphabet", "$ü.output == 'x'", ast.CondError{Span: condSp(0, 10),
			Message: `"$ü.output" cannot be a reference: the step id "ü" has 'ü', and a reference names only ids of letters, digits, _ and - (S4); rename the step with those characters`}},
		{"S4 id outside the alphabet, second", "'x' != $a-ü.status", ast.CondError{Span: condSp(7, 19),
			Message: `"$a-ü.status" cannot be a reference: the step id "a-ü" has 'ü', and a reference names only ids of letters, digits, _ and - (S4); rename the step with those characters`}},
		{"S4 dot in the id", "$a.b.output == 'x'", ast.CondError{Span: condSp(0, 11),
			Message: `"$a.b.output" cannot be a reference: the step id "a.b" has '.', and a reference names only ids of letters, digits, _ and - (S4); to read step "a", write $a.output (a reference reads a step's whole output or status, no part of it); else rename the step with those characters`}},
		{"S4 other character in the id", "$a+b.output == 'x'", ast.CondError{Span: condSp(0, 11),
			Message: `"$a+b.output" cannot be a reference: the step id "a+b" has '+', and a reference names only ids of letters, digits, _ and - (S4); rename the step with those characters`}},
		{"S10 unterminated single", "$a.status == 'failed", ast.CondError{Span: condSp(13, 20), Suggestion: "'failed'",
			Message: `unterminated literal "'failed": add the closing ' at its end`}},
		{"S10 unterminated double", `$a.output == "it's`, ast.CondError{Span: condSp(13, 18), Suggestion: `"it's"`,
			Message: `unterminated literal "\"it's": add the closing " at its end`}},
		{"S10 single =", "$a.status = 'x'", ast.CondError{Span: condSp(10, 11), Suggestion: "==",
			Message: `"=" is not an operator: use == to compare`}},
		{"S10 single &", "$a.status == 'x' & $b.status == 'y'", ast.CondError{Span: condSp(17, 18), Suggestion: "&&",
			Message: `"&" is not an operator: use && (both)`}},
		{"S10 single |", "$a.status == 'x' | $b.status == 'y'", ast.CondError{Span: condSp(17, 18), Suggestion: "||",
			Message: `"|" is not an operator: use || (either)`}},
		{"S10 other character", "$a.status == 'x' # note", ast.CondError{Span: condSp(17, 18),
			Message: `unexpected character "#"` + unexpected}},
		{"S10 non-ASCII space", "$a.status ==\u00a0'x'", ast.CondError{Span: condSp(12, 14),
			Message: `unexpected character "\u00a0"` + unexpected}},
		{"S10 NUL byte", "$a.status == 'x'\x00", ast.CondError{Span: condSp(16, 17),
			Message: `unexpected character "\x00"` + unexpected}},
		{"S10 invalid UTF-8", "$a.status == \xff", ast.CondError{Span: condSp(13, 14),
			Message: `invalid UTF-8 byte "\xff": remove it`}},
		{"S10 missing operand at the end", "$a.status ==", ast.CondError{Span: condSp(10, 12),
			Message: `missing operand after "==" at the end` + operand}},
		{"S10 missing comparison at the end", "$a.status == 'x' || ", ast.CondError{Span: condSp(17, 19),
			Message: `missing operand after "||" at the end` + operand}},
		{"S10 missing operand first", "== 'x'", ast.CondError{Span: condSp(0, 2),
			Message: `missing operand before "=="` + operand}},
		{"S10 missing operand between", "$a.status == && 'x'", ast.CondError{Span: condSp(10, 15),
			Message: `missing operand between "==" and "&&"` + operand}},
		{"S10 missing operator", "$a.status 'x'", ast.CondError{Span: condSp(0, 13),
			Message: `missing operator between "$a.status" and "'x'"` + operator}},
		{"S10 first problem wins", "10 == $a.status && failed", ast.CondError{Span: condSp(0, 2), Suggestion: "'10'",
			Message: `unquoted number "10": conditions compare text, so quote it as '10'`}},
		{"S10 token before a syntax error wins", "$a.status = 'x' 'y'", ast.CondError{Span: condSp(10, 11),
			Suggestion: "==", Message: `"=" is not an operator: use == to compare`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ParseCond(tt.text, condSrc1)
			if err == nil {
				t.Fatalf("ParseCond(%q) = %s, want a refusal", tt.text, ast.FormatCond(c))
			}
			if c != nil {
				t.Errorf("ParseCond(%q) returned a tree with its refusal", tt.text)
			}
			if diff := cmp.Diff(&tt.want, err); diff != "" {
				t.Errorf("ParseCond(%q) (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

// TestParseCondRefusalPosition: a refusal's span is placed through
// CondSource like a node's.
func TestParseCondRefusalPosition(t *testing.T) {
	src := CondSource{Base: 200}
	_, err := ParseCond("$a.status == failed", src)
	want := ast.Range{Start: 213, End: 219}
	if err == nil || err.Span != want {
		t.Fatalf("refusal = %+v, want span %v", err, want)
	}
}

// TestParseCondLarge: long inputs neither panic nor recurse without bound.
func TestParseCondLarge(t *testing.T) {
	long := strings.Repeat("$a.status == 'x' && ", 20000) + "$b.output != ''"
	c, err := ParseCond(long, condSrc1)
	if err != nil || len(ast.CondRefs(nil, c)) != 20001 {
		t.Fatalf("long chain: %v", err)
	}
	for _, text := range []string{
		strings.Repeat("(", 100000) + "$a.status == 'x'" + strings.Repeat(")", 100000),
		strings.Repeat("!", 100000) + "$a.status == 'x'",
		strings.Repeat("$a.status == 'x' && ", 2000) + "$b.output", // all through participle
		strings.Repeat("'x' ", 50000),
	} {
		if _, err := ParseCond(text, condSrc1); err == nil {
			t.Errorf("ParseCond(%.20q…) was accepted", text)
		}
	}
}

// TestParseCondConcurrent: the shared participle parser may be used from
// several goroutines at once (run with -race).
func TestParseCondConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 50 {
				text := fmt.Sprintf("$s%d.status == 'x' && $t%d.output = '%d'", g, i, i)
				if _, err := ParseCond(text, condSrc1); err == nil || err.Suggestion != "==" {
					t.Errorf("ParseCond(%q) = %+v", text, err)
				}
			}
		})
	}
	wg.Wait()
}

func BenchmarkParseCond(b *testing.B) {
	const text = `$a.status == 'failed' || $b.status == 'failed'`
	src := CondSource{Base: 40}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseCond(text, src); err != nil {
			b.Fatal(err.Message)
		}
	}
}

// BenchmarkParseCondGrammar measures the participle grammar alone, the path
// every refused condition takes.
func BenchmarkParseCondGrammar(b *testing.B) {
	const text = `$a.status == 'failed' || $b.status == 'failed'`
	src := CondSource{Base: 40}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseCondGrammar(text, src); err != nil {
			b.Fatal(err.Message)
		}
	}
}

// ifRef is the reference a condition holds, with its parts' spans.
func ifRef(id, field string, f ast.RefField, span, idSpan, fieldSpan ast.Range) *ast.Ref {
	r := &ast.Ref{StepID: id, FieldName: field, Field: f, InIf: true, Span: span}
	r.SetParts(idSpan, fieldSpan)
	return r
}
