package parser

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2"
	plexer "github.com/alecthomas/participle/v2/lexer"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/lexer"
)

// The participle grammar of a condition. It is deliberately more permissive
// than semantics S10 — an operand may be a number, a word, a malformed
// reference, an unterminated literal, a stray character, `!`, `(` or `)`;
// comparisons may chain; `=`, `>=`, `<=`, `&`, `|` are operators — so that
// the usual mistakes parse and condBuilder refuses each with a message that
// names the fix, rather than participle's "unexpected token". Parentheses
// and `!` are refused wherever they stand, so the grammar does not nest
// them: it never recurses, whatever the input.
//
//	or      = and { ("||" | "|") and }
//	and     = cmp { ("&&" | "&") cmp }
//	cmp     = operand { ("==" | "!=" | ">=" | "<=" | ">" | "<" | "=") operand }
//	operand = Ref | String | Unterminated | Word | Bad | "!" | "(" | ")"
type (
	condOr struct {
		X    *condAnd      `parser:"@@"`
		Rest []*condOrTail `parser:"@@*"`
	}
	condOrTail struct {
		Op plexer.Token `parser:"@('||' | '|')"`
		X  *condAnd     `parser:"@@"`
	}
	condAnd struct {
		X    *condCmp       `parser:"@@"`
		Rest []*condAndTail `parser:"@@*"`
	}
	condAndTail struct {
		Op plexer.Token `parser:"@('&&' | '&')"`
		X  *condCmp     `parser:"@@"`
	}
	condCmp struct {
		X    plexer.Token   `parser:"@(Ref | String | Unterminated | Word | Bad | '!' | '(' | ')')"`
		Rest []*condCmpTail `parser:"@@*"`
	}
	condCmpTail struct {
		Op plexer.Token `parser:"@('==' | '!=' | '>=' | '<=' | '>' | '<' | '=')"`
		X  plexer.Token `parser:"@(Ref | String | Unterminated | Word | Bad | '!' | '(' | ')')"`
	}
)

// condParser is built once, at its first use: a participle parser is
// immutable after Build and safe for concurrent use. Only a condition
// fastCond does not take needs it, so building it at package init (about
// half a millisecond) would add to every planc start.
var condParser = sync.OnceValue(func() *participle.Parser[condOr] {
	return participle.MustBuild[condOr](participle.Lexer(lexer.Cond))
})

// ParseCond parses the text of an `if` (semantics S10) into a condition
// tree. src maps byte offsets in text to positions in the plan file. On a
// refusal it returns nil and the first problem found, left to right, as a
// CondError whose message names the fix. References are returned with
// InIf set; a field other than output or status is not refused here
// (Field is ast.RefOther), the checker reports it. ParseCond never panics.
//
// A well-formed condition is parsed by fastCond; anything else goes to the
// participle grammar, which either builds the same tree or finds the
// refusal (FuzzParseCond checks that the two agree).
func ParseCond(text string, src CondSource) (ast.Cond, *ast.CondError) {
	return parseCond(text, src, nil)
}

// parseCond is ParseCond with the nodes of a well-formed condition taken
// from n (nil: allocated one by one).
func parseCond(text string, src CondSource, n *nodes) (ast.Cond, *ast.CondError) {
	if lexer.SkipCondSpace(text, 0) == len(text) {
		return nil, &ast.CondError{
			Span:       src.Span(0, len(text)),
			Message:    "empty condition: write a comparison such as $a.status == 'success', or remove the if",
			Suggestion: "$a.status == 'success'",
		}
	}
	if c, ok := fastCond(text, src, n); ok {
		return c, nil
	}
	return parseCondGrammar(text, src)
}

// parseCondGrammar parses text with the participle grammar.
func parseCondGrammar(text string, src CondSource) (ast.Cond, *ast.CondError) {
	b := condBuilder{text: text, src: src}
	tree, err := condParser().ParseString("", text)
	if err != nil {
		return nil, b.syntaxError(err)
	}
	if c := b.or(tree); b.err == nil {
		return c, nil
	}
	return nil, b.err
}

// fastCond parses a condition that is well formed and holds only
// references and literals, straight from lexer.ScanCond: the common case,
// without participle's reflection (see BenchmarkParseCond). It reports
// false for anything else.
func fastCond(text string, src CondSource, n *nodes) (ast.Cond, bool) {
	var or, and ast.Cond      // the || chain so far; the && chain being built
	var orOp, andOp ast.Range // the operator before and, and before the next comparison
	i := 0
	for {
		x, i1, ok := fastOperand(text, src, i, n)
		if !ok {
			return nil, false
		}
		s := lexer.SkipCondSpace(text, i1)
		_, e := lexer.ScanCond(text, s)
		op, ok := compareOp(text[s:e])
		if !ok {
			return nil, false
		}
		y, i2, ok := fastOperand(text, src, e, n)
		if !ok {
			return nil, false
		}
		c := n.compare()
		*c = ast.Compare{Op: op, X: x, Y: y, OpSpan: src.Span(s, e)}
		and = logical(n, ast.OpAnd, and, c, andOp)
		s = lexer.SkipCondSpace(text, i2)
		_, e = lexer.ScanCond(text, s)
		switch text[s:e] {
		case "":
			return logical(n, ast.OpOr, or, and, orOp), true
		case "&&":
			andOp = src.Span(s, e)
		case "||":
			or, and, orOp = logical(n, ast.OpOr, or, and, orOp), nil, src.Span(s, e)
		default:
			return nil, false
		}
		i = e
	}
}

// fastOperand scans a well-formed reference or literal at or after i.
func fastOperand(text string, src CondSource, i int, n *nodes) (ast.Operand, int, bool) {
	i = lexer.SkipCondSpace(text, i)
	typ, e := lexer.ScanCond(text, i)
	if typ == lexer.CondString || typ == lexer.CondRef && validRef(text[i:e]) {
		return newOperand(n, text[i:e], i, src), e, true
	}
	return nil, e, false
}

// compareOp maps the four comparison operators of S10 to ast.CompareOp.
func compareOp(v string) (ast.CompareOp, bool) {
	for op := ast.OpEq; op <= ast.OpLt; op++ {
		if op.String() == v {
			return op, true
		}
	}
	return 0, false
}

// logical returns x op y, or y when x is nil.
func logical(n *nodes, op ast.LogicalOp, x, y ast.Cond, opSpan ast.Range) ast.Cond {
	if x == nil {
		return y
	}
	l := n.logical()
	*l = ast.Logical{Op: op, X: x, Y: y, OpSpan: opSpan}
	return l
}

// newOperand returns the *ast.Literal or *ast.Ref of token v (a quoted
// literal, or a reference that validRef accepts) starting at byte start.
func newOperand(n *nodes, v string, start int, src CondSource) ast.Operand {
	end := start + len(v)
	if v[0] != '$' {
		l := n.literal()
		*l = ast.Literal{Value: v[1 : len(v)-1], Quote: v[0], Span: src.Span(start, end)}
		return l
	}
	dot := strings.IndexByte(v, '.')
	r := n.ref()
	*r = ast.Ref{StepID: v[1:dot], FieldName: v[dot+1:], Field: ast.RefFieldOf(v[dot+1:]), InIf: true,
		Span: src.Span(start, end)}
	r.SetParts(src.Span(start+1, start+dot), src.Span(start+dot+1, end))
	return r
}

// validRef reports whether v, a lexer.CondRef token, has the shape $ID.FIELD
// of semantics S6: one dot, a non-empty ID, a non-empty FIELD without `-`.
func validRef(v string) bool {
	dot := strings.IndexByte(v, '.')
	if dot < 2 || dot == len(v)-1 {
		return false
	}
	for i := dot + 1; i < len(v); i++ {
		if v[i] == '.' || v[i] == '-' {
			return false
		}
	}
	return true
}

// condBuilder turns the permissive participle tree into an ast.Cond,
// stopping at the first refusal, which it keeps in err.
type condBuilder struct {
	text string
	src  CondSource
	err  *ast.CondError
}

func (b *condBuilder) fail(e *ast.CondError) {
	if b.err == nil {
		b.err = e
	}
}

func tokEnd(t *plexer.Token) int { return t.Pos.Offset + len(t.Value) }

func (b *condBuilder) tokSpan(t *plexer.Token) ast.Range { return b.src.Span(t.Pos.Offset, tokEnd(t)) }

func (b *condBuilder) or(n *condOr) ast.Cond {
	x := b.and(n.X)
	for _, t := range n.Rest {
		b.fail(b.tokenProblem(&t.Op))
		y := b.and(t.X)
		if b.err != nil {
			return nil
		}
		x = logical(nil, ast.OpOr, x, y, b.tokSpan(&t.Op))
	}
	return x
}

func (b *condBuilder) and(n *condAnd) ast.Cond {
	x := b.cmp(n.X)
	for _, t := range n.Rest {
		b.fail(b.tokenProblem(&t.Op))
		y := b.cmp(t.X)
		if b.err != nil {
			return nil
		}
		x = logical(nil, ast.OpAnd, x, y, b.tokSpan(&t.Op))
	}
	return x
}

func (b *condBuilder) cmp(n *condCmp) ast.Cond {
	x := b.operand(&n.X)
	if b.err != nil {
		return nil
	}
	xt := n.X.Value
	if len(n.Rest) == 0 {
		fix := "$<step id>.output == " + xt
		if r, ok := x.(*ast.Ref); ok && r.Field == ast.RefOutput {
			fix = xt + " != ''"
		} else if ok {
			fix = xt + " == 'success'"
		}
		b.fail(&ast.CondError{Span: b.tokSpan(&n.X), Suggestion: fix,
			Message: fmt.Sprintf("%q is not a condition on its own: compare it, e.g. %s", xt, fix)})
		return nil
	}
	// Every operand and operator of the comparison is checked before >=,
	// <= or a chain is refused, so that the example in the message holds.
	var y ast.Operand
	for i, t := range n.Rest {
		b.fail(b.tokenProblem(&t.Op))
		if o := b.operand(&t.X); i == 0 {
			y = o
		}
	}
	if b.err != nil {
		return nil
	}
	t := n.Rest[0]
	if t.Op.Value == ">=" || t.Op.Value == "<=" {
		fix := fmt.Sprintf("%s %c %s || %s == %s", xt, t.Op.Value[0], t.X.Value, xt, t.X.Value)
		b.fail(&ast.CondError{Span: b.tokSpan(&t.Op), Suggestion: fix,
			Message: fmt.Sprintf("%q is not an operator: write %s", t.Op.Value, fix)})
		return nil
	}
	if len(n.Rest) > 1 {
		t2 := n.Rest[1]
		fix := fmt.Sprintf("%s && %s %s %s", b.text[n.X.Pos.Offset:tokEnd(&t.X)], t.X.Value, t2.Op.Value, t2.X.Value)
		b.fail(&ast.CondError{Span: b.tokSpan(&t2.Op), Suggestion: fix,
			Message: fmt.Sprintf("chained comparison: %q cannot follow a comparison; "+
				"compare two operands at a time and join them with &&, e.g. %s", t2.Op.Value, fix)})
		return nil
	}
	op, _ := compareOp(t.Op.Value)
	return &ast.Compare{Op: op, X: x, Y: y, OpSpan: b.tokSpan(&t.Op)}
}

// operand converts a token that must be a reference or a literal.
func (b *condBuilder) operand(t *plexer.Token) ast.Operand {
	if b.fail(b.tokenProblem(t)); b.err != nil {
		return nil
	}
	return newOperand(nil, t.Value, t.Pos.Offset, b.src)
}

// tokenProblem returns the refusal a token earns on its own, wherever it
// stands, or nil when the token may appear in a condition. The >= and <=
// operators are not refused here: cmp refuses them with their operands.
func (b *condBuilder) tokenProblem(t *plexer.Token) *ast.CondError {
	v := t.Value
	e := &ast.CondError{Span: b.tokSpan(t)}
	switch t.Type {
	case lexer.CondString, lexer.CondEOF:
		return nil
	case lexer.CondRef:
		if validRef(v) {
			return nil
		}
		if n, id, bad, ok := ast.UnreferenceableRef(b.text[t.Pos.Offset:]); ok {
			e.Span = b.src.Span(t.Pos.Offset, t.Pos.Offset+n)
			text := b.text[t.Pos.Offset : t.Pos.Offset+n]
			fix := "rename the step with those characters"
			if head := id[:strings.IndexRune(id, bad)]; bad == '.' && head != "" {
				// "$a.b.status" most often means a part of step a's
				// result, which no reference reads.
				fix = fmt.Sprintf("to read step %q, write %s (a reference reads a step's whole output or status, no part of it); else %s", head, "$"+head+text[1+len(id):], fix)
			}
			e.Message = fmt.Sprintf("%q cannot be a reference: the step id %q has %q, and a reference names only ids of letters, digits, _ and - (S4); %s", text, id, bad, fix)
			return e
		}
		e.Message = fmt.Sprintf("malformed reference %q: write $<step id>.output or $<step id>.status", v)
	case lexer.CondUnterminated:
		e.Suggestion = v + v[:1]
		e.Message = fmt.Sprintf("unterminated literal %q: add the closing %s at its end", v, v[:1])
	case lexer.CondWord:
		switch strings.ToLower(v) {
		case "and":
			e.Suggestion, e.Message = "&&", fmt.Sprintf("%q is not an operator: use && (both)", v)
		case "or":
			e.Suggestion, e.Message = "||", fmt.Sprintf("%q is not an operator: use || (either)", v)
		case "not":
			e.Suggestion, e.Message = "!=", fmt.Sprintf("%q is not an operator: negate a comparison with !=", v)
		default:
			e.Suggestion = "'" + v + "'"
			e.Message = fmt.Sprintf("unquoted word %q: quote it as %s", v, e.Suggestion)
			if isNumber(v) {
				e.Message = fmt.Sprintf("unquoted number %q: conditions compare text, so quote it as %s", v, e.Suggestion)
			}
		}
	case lexer.CondBad:
		e.Message = fmt.Sprintf("unexpected character %q: remove it, or put it inside a quoted literal", v)
		if v[0] >= utf8.RuneSelf && len(v) == 1 {
			e.Message = fmt.Sprintf("invalid UTF-8 byte %q: remove it", v)
		}
	default: // lexer.CondOp
		switch v {
		case "==", "!=", ">", "<", "&&", "||", ">=", "<=":
			return nil
		case "=":
			e.Suggestion, e.Message = "==", `"=" is not an operator: use == to compare`
		case "&":
			e.Suggestion, e.Message = "&&", `"&" is not an operator: use && (both)`
		case "|":
			e.Suggestion, e.Message = "||", `"|" is not an operator: use || (either)`
		case "!":
			e.Suggestion, e.Message = "!=", `negation with "!" is not supported: compare with != instead`
		default: // ( and )
			e.Message = "parentheses are not supported: && binds tighter than ||, so rewrite the condition without them"
		}
	}
	return e
}

// isNumber reports whether a word reads as a number: an optional sign, then
// digits with at most one dot.
func isNumber(v string) bool {
	v = strings.TrimPrefix(v, "-")
	digits := len(v) - strings.Count(v, ".")
	return digits > 0 && len(v)-digits <= 1 && strings.Trim(v, "0123456789.") == ""
}

// syntaxError maps an error from participle to a CondError.
// The first token up to where the parse failed that is refused on its own
// is reported, as it is both further left and more precise; otherwise the
// failure is a missing operand or operator.
func (b *condBuilder) syntaxError(err error) *ast.CondError {
	at := len(b.text)
	var perr participle.Error
	if errors.As(err, &perr) {
		at = perr.Position().Offset
	}
	toks := lexer.AppendCondTokens(make([]plexer.Token, 0, 16), b.text)
	k := 0
	for ; k < len(toks)-1 && toks[k].Pos.Offset < at; k++ {
		if e := b.tokenProblem(&toks[k]); e != nil {
			return e
		}
	}
	t := &toks[k]
	if e := b.tokenProblem(t); e != nil {
		return e
	}
	isOp := func(t *plexer.Token) bool { return t.Type == lexer.CondOp }
	switch {
	case k == 0 && isOp(t):
		return &ast.CondError{Span: b.tokSpan(t),
			Message: fmt.Sprintf("missing operand before %q: add a reference or a quoted literal", t.Value)}
	case k == 0: // participle does not fail at a sound first operand; toks[k-1] needs k > 0
	case t.Type == lexer.CondEOF && isOp(&toks[k-1]):
		return &ast.CondError{Span: b.tokSpan(&toks[k-1]),
			Message: fmt.Sprintf("missing operand after %q at the end: add a reference or a quoted literal", toks[k-1].Value)}
	case isOp(t) && isOp(&toks[k-1]):
		return &ast.CondError{Span: b.src.Span(toks[k-1].Pos.Offset, tokEnd(t)),
			Message: fmt.Sprintf("missing operand between %q and %q: add a reference or a quoted literal", toks[k-1].Value, t.Value)}
	case !isOp(t) && t.Type != lexer.CondEOF && !isOp(&toks[k-1]):
		return &ast.CondError{Span: b.src.Span(toks[k-1].Pos.Offset, tokEnd(t)),
			Message: fmt.Sprintf("missing operator between %q and %q: compare with ==, !=, > or <, or join comparisons with && or ||",
				toks[k-1].Value, t.Value)}
	}
	return &ast.CondError{Span: b.tokSpan(t),
		Message: fmt.Sprintf("unexpected %q: write comparisons such as $a.status == 'failed', joined with && or ||", t.Value)}
}
