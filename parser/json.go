package parser

import (
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/planc/planc/ast"
)

// Codes of the document-level diagnostics the parser reports. Every other
// code belongs to a rule in check/.
const (
	CodeJSONSyntax   = "json-syntax"
	CodeInvalidUTF8  = "invalid-utf8"
	CodeTrailingData = "trailing-data"
	CodeDuplicateKey = "duplicate-key"
	CodeTooLarge     = "too-large"
	CodeTooDeep      = "too-deep"
	CodeTooManySteps = "too-many-steps"
	CodeNotAnObject  = "not-an-object"
)

// ParseJSON parses one JSON document into a positioned value tree. It
// refuses invalid UTF-8, trailing data, documents over lim.MaxBytes and
// nesting deeper than lim.MaxDepth, and reports duplicate keys (keeping the
// first member). On a fatal error the returned value is nil.
func ParseJSON(src []byte, lim Limits) (*ast.Value, []ast.Diagnostic) {
	p := newScanner(src, lim)
	v := p.document()
	ast.SortDiagnostics(p.diags)
	return v, p.diags
}

type scanner struct {
	src    []byte
	text   string // src as a string, so substrings share one allocation
	lim    Limits
	off    int
	lines  *ast.Lines // resolves the diagnostics' ranges
	depth  int
	isPlan bool // word messages for a plan rather than any document
	diags  []ast.Diagnostic
	failed bool

	values  []ast.Value // slab for value nodes
	members []ast.Member

	// Members and elements are gathered on these stacks while a container
	// is open and carved into an exact-size slice from a slab when it
	// closes: no append growth garbage, few allocations.
	memStack []*ast.Member
	valStack []*ast.Value
	memPtrs  []*ast.Member
	valPtrs  []*ast.Value

	// For a plan, the first "steps" member of the root object, when it is
	// a list, is the steps list: each of its objects becomes an ast.Step as
	// soon as it is parsed, while its nodes are still in the cache, instead
	// of in a second walk over the whole tree (stepsKey marks that the key
	// was seen; a later "steps" is a duplicate).
	stepsKey   bool
	stepSlabs  [][]ast.Step // the full slabs of steps, in order
	stepSlab   []ast.Step   // the slab being filled
	nSteps     int          // steps built
	stepCount  int          // elements of the steps list, objects or not
	notObjects []ast.Elem   // elements of the steps list that are not objects

	nodes nodes // the steps' small nodes
	// A step's members, unknown keys, depends_on entries and references
	// while it is built.
	fieldScratch []ast.Field
	keyScratch   []string
	depScratch   []ast.Dep
	otherScratch []ast.Field
	refScratch   []*ast.Ref
}

func newScanner(src []byte, lim Limits) *scanner {
	return &scanner{src: src, lim: lim}
}

// rng returns the range [start, end) of byte offsets.
func rng(start, end int) ast.Range { return ast.Range{Start: int32(start), End: int32(end)} }

// span resolves r to lines and columns, for a diagnostic.
func (p *scanner) span(r ast.Range) ast.Span {
	if p.lines == nil {
		p.lines = ast.NewLines(string(p.src))
	}
	return p.lines.Span(r)
}

func (p *scanner) fail(code string, r ast.Range, format string, args ...any) {
	if p.failed {
		return
	}
	p.failed = true
	p.diags = append(p.diags, ast.Diagnostic{Span: p.span(r), Severity: ast.Error, Code: code, Message: fmt.Sprintf(format, args...)})
}

func (p *scanner) document() *ast.Value {
	if p.lim.MaxBytes > 0 && len(p.src) > p.lim.MaxBytes {
		fix := "make it smaller"
		if p.isPlan {
			fix = "split the plan into smaller plans"
		}
		p.fail(CodeTooLarge, rng(0, 0),
			"the document is %d bytes, over the limit of %d bytes; %s", len(p.src), p.lim.MaxBytes, fix)
		return nil
	}
	if !utf8.Valid(p.src) {
		bad := firstInvalidUTF8(p.src)
		p.fail(CodeInvalidUTF8, rng(bad, bad+1),
			"invalid UTF-8 byte 0x%02x; save the plan as UTF-8 text", p.src[bad])
		return nil
	}
	p.text = string(p.src)
	p.lines = ast.NewLines(p.text)
	p.skipSpace()
	if p.off == len(p.src) {
		if p.isPlan {
			p.fail(CodeJSONSyntax, p.here(), "the document is empty; a plan is one JSON object: {\"id\": …, \"steps\": […]}")
		} else {
			p.fail(CodeJSONSyntax, p.here(), "the document is empty; write one JSON object")
		}
		return nil
	}
	v := p.value()
	if p.failed {
		return nil
	}
	p.skipSpace()
	if p.off < len(p.src) {
		p.fail(CodeTrailingData, rng(p.off, len(p.src)),
			"trailing data after the JSON document; a document is exactly one JSON object, remove what follows it")
		return nil
	}
	return v
}

func firstInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}

func (p *scanner) here() ast.Range {
	n := 0
	if p.off < len(p.src) {
		_, n = utf8.DecodeRune(p.src[p.off:])
	}
	return rng(p.off, p.off+n)
}

func (p *scanner) skipSpace() {
	for p.off < len(p.src) {
		switch p.src[p.off] {
		case ' ', '\t', '\r', '\n':
			p.off++
		default:
			return
		}
	}
}

func (p *scanner) newValue(k ast.Kind) *ast.Value {
	if len(p.values) == cap(p.values) {
		p.values = make([]ast.Value, 0, 256)
	}
	p.values = p.values[:len(p.values)+1]
	v := &p.values[len(p.values)-1]
	v.Kind = k
	return v
}

func (p *scanner) newMember() *ast.Member {
	if len(p.members) == cap(p.members) {
		p.members = make([]ast.Member, 0, 256)
	}
	p.members = p.members[:len(p.members)+1]
	return &p.members[len(p.members)-1]
}

func (p *scanner) unexpected(what string) {
	if p.off >= len(p.src) {
		p.fail(CodeJSONSyntax, p.here(), "unexpected end of the document, expected %s; close every object and list", what)
		return
	}
	r, _ := utf8.DecodeRune(p.src[p.off:])
	if r == '\ufeff' {
		// Editors on Windows put one at a file's start; JSON has none
		// (RFC 8259, 8.1).
		p.fail(CodeJSONSyntax, p.here(), "unexpected byte order mark (U+FEFF), expected %s; save the file as UTF-8 without a byte order mark", what)
		return
	}
	p.fail(CodeJSONSyntax, p.here(), "unexpected %s, expected %s", quoteRune(r), what)
}

func quoteRune(r rune) string {
	if r == '\'' {
		return `"'" (JSON strings take double quotes)`
	}
	return strconv.QuoteRune(r)
}

func (p *scanner) value() *ast.Value {
	if p.off >= len(p.src) {
		p.unexpected("a value")
		return nil
	}
	switch c := p.src[p.off]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		return p.stringValue()
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case c == 't':
		return p.word("true", ast.Bool, true)
	case c == 'f':
		return p.word("false", ast.Bool, false)
	case c == 'n':
		return p.word("null", ast.Null, false)
	default:
		p.unexpected("a value (object, list, string, number, true, false or null)")
		return nil
	}
}

func (p *scanner) word(w string, k ast.Kind, b bool) *ast.Value {
	start := p.off
	if !p.scanWord(w) {
		return nil
	}
	v := p.newValue(k)
	v.Bool = b
	v.Span = rng(start, p.off)
	return v
}

// scanWord scans the literal w (true, false or null).
func (p *scanner) scanWord(w string) bool {
	if len(p.src)-p.off < len(w) || string(p.src[p.off:p.off+len(w)]) != w {
		p.unexpected("a value (object, list, string, number, true, false or null)")
		return false
	}
	p.off += len(w)
	return true
}

func (p *scanner) enter() bool {
	p.depth++
	if p.lim.MaxDepth > 0 && p.depth > p.lim.MaxDepth {
		p.fail(CodeTooDeep, p.here(), "nesting deeper than %d levels; flatten the input", p.lim.MaxDepth)
		return false
	}
	return true
}

func (p *scanner) object() *ast.Value {
	if !p.enter() {
		return nil
	}
	defer func() { p.depth-- }()
	v := p.newValue(ast.Object)
	var seen map[string]*ast.Member
	base := len(p.memStack)
	r, ok := p.scanObject(func(key string, keySpan ast.Range) bool {
		var val *ast.Value
		if p.isPlan && p.depth == 1 && key == "steps" && !p.stepsKey {
			p.stepsKey = true
			if p.off < len(p.src) && p.src[p.off] == '[' {
				val = p.stepsList()
			} else {
				val = p.value()
			}
		} else {
			val = p.value()
		}
		if val == nil {
			return false
		}
		if dup := lookup(p.memStack[base:], &seen, key); dup != nil {
			p.duplicate(key, keySpan, dup.KeySpan())
		} else {
			m := p.newMember()
			m.Key, m.Value = key, val
			m.SetKeySpan(keySpan)
			p.memStack = append(p.memStack, m)
			if seen != nil {
				seen[key] = m
			}
		}
		return true
	})
	if !ok {
		return nil
	}
	v.Span = r
	v.SetMembers(p.carveMembers(p.memStack[base:]))
	p.memStack = p.memStack[:base]
	return v
}

// scanObject scans an object from its opening brace to its closing one,
// calling member for each member with the scanner at the member's value,
// which member must scan. It returns the object's range; false when the
// document is not JSON (the failure is reported) or member returned false.
func (p *scanner) scanObject(member func(key string, keySpan ast.Range) bool) (ast.Range, bool) {
	start := p.off
	p.off++ // {
	p.skipSpace()
	if p.off < len(p.src) && p.src[p.off] == '}' {
		p.off++
		return rng(start, p.off), true
	}
	for {
		p.skipSpace()
		if p.off >= len(p.src) || p.src[p.off] != '"' {
			if p.off < len(p.src) && p.src[p.off] == '}' {
				p.fail(CodeJSONSyntax, p.here(), "trailing comma before %q; remove the comma", "}")
				return ast.Range{}, false
			}
			p.unexpected("an object key in double quotes")
			return ast.Range{}, false
		}
		keyStart := p.off
		key, _, ok := p.str()
		if !ok {
			return ast.Range{}, false
		}
		keySpan := rng(keyStart, p.off)
		p.skipSpace()
		if p.off >= len(p.src) || p.src[p.off] != ':' {
			p.unexpected(fmt.Sprintf("%q after the key %q", ":", key))
			return ast.Range{}, false
		}
		p.off++
		p.skipSpace()
		if !member(key, keySpan) {
			return ast.Range{}, false
		}
		p.skipSpace()
		if p.off >= len(p.src) {
			p.unexpected(`"," or "}"`)
			return ast.Range{}, false
		}
		switch p.src[p.off] {
		case ',':
			p.off++
		case '}':
			p.off++
			return rng(start, p.off), true
		default:
			p.unexpected(`"," or "}" after an object member`)
			return ast.Range{}, false
		}
	}
}

// duplicate reports the key at keySpan as a duplicate of the one at first.
func (p *scanner) duplicate(key string, keySpan, first ast.Range) {
	p.diags = append(p.diags, ast.Diagnostic{Span: p.span(keySpan), Severity: ast.Error, Code: CodeDuplicateKey,
		Message: fmt.Sprintf("duplicate key %q (first at %s); JSON with duplicate keys has no single meaning, keep one", key, p.lines.Pos(first.Start))})
}

// lookup finds key among v's members: a linear scan for small objects, a
// map once an object grows, so a huge object stays linear.
func lookup(members []*ast.Member, seen *map[string]*ast.Member, key string) *ast.Member {
	if *seen != nil {
		return (*seen)[key]
	}
	for _, m := range members {
		if m.Key == key {
			return m
		}
	}
	if len(members) >= 16 {
		*seen = make(map[string]*ast.Member, 2*len(members))
		for _, m := range members {
			(*seen)[m.Key] = m
		}
	}
	return nil
}

func (p *scanner) array() *ast.Value {
	if !p.enter() {
		return nil
	}
	defer func() { p.depth-- }()
	v := p.newValue(ast.Array)
	base := len(p.valStack)
	r, ok := p.scanList(func() bool {
		e := p.value()
		if e == nil {
			return false
		}
		p.valStack = append(p.valStack, e)
		return true
	})
	if !ok {
		return nil
	}
	v.Span = r
	v.SetElems(p.carveValues(p.valStack[base:]))
	p.valStack = p.valStack[:base]
	return v
}

// scanList scans a list from its opening bracket to its closing one, calling
// elem for each element with the scanner at it, which elem must scan. It
// returns the list's range; false when the document is not JSON (the
// failure is reported) or elem returned false.
func (p *scanner) scanList(elem func() bool) (ast.Range, bool) {
	start := p.off
	p.off++ // [
	p.skipSpace()
	if p.off < len(p.src) && p.src[p.off] == ']' {
		p.off++
		return rng(start, p.off), true
	}
	for {
		p.skipSpace()
		if p.off < len(p.src) && p.src[p.off] == ']' {
			p.fail(CodeJSONSyntax, p.here(), "trailing comma before %q; remove the comma", "]")
			return ast.Range{}, false
		}
		if !elem() {
			return ast.Range{}, false
		}
		p.skipSpace()
		if p.off >= len(p.src) {
			p.unexpected(`"," or "]"`)
			return ast.Range{}, false
		}
		switch p.src[p.off] {
		case ',':
			p.off++
		case ']':
			p.off++
			return rng(start, p.off), true
		default:
			p.unexpected(`"," or "]" after a list element`)
			return ast.Range{}, false
		}
	}
}

// carveMembers copies ms into an exact-size slice cut from a slab.
func (p *scanner) carveMembers(ms []*ast.Member) []*ast.Member {
	if len(ms) > cap(p.memPtrs)-len(p.memPtrs) {
		p.memPtrs = make([]*ast.Member, 0, max(1024, len(ms)))
	}
	i := len(p.memPtrs)
	p.memPtrs = append(p.memPtrs, ms...)
	return p.memPtrs[i:len(p.memPtrs):len(p.memPtrs)]
}

// carveValues copies vs into an exact-size slice cut from a slab.
func (p *scanner) carveValues(vs []*ast.Value) []*ast.Value {
	if len(vs) > cap(p.valPtrs)-len(p.valPtrs) {
		p.valPtrs = make([]*ast.Value, 0, max(1024, len(vs)))
	}
	i := len(p.valPtrs)
	p.valPtrs = append(p.valPtrs, vs...)
	return p.valPtrs[i:len(p.valPtrs):len(p.valPtrs)]
}

func (p *scanner) stringValue() *ast.Value {
	start := p.off
	s, escaped, ok := p.str()
	if !ok {
		return nil
	}
	v := p.newValue(ast.String)
	v.Str = s
	v.Escaped = escaped
	v.Span = rng(start, p.off)
	return v
}

// str scans a JSON string starting at the opening quote and returns its
// decoded text and whether it held escapes.
func (p *scanner) str() (string, bool, bool) {
	start := p.off
	i := p.off + 1
	for i < len(p.src) {
		c := p.src[i]
		if c == '"' {
			p.off = i + 1
			return p.text[start+1 : i], false, true
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			p.off = i
			p.fail(CodeJSONSyntax, p.here(), "control character %s inside a string; write it as an escape such as \\n", strconv.QuoteRune(rune(c)))
			return "", false, false
		}
		i++
	}
	if i >= len(p.src) {
		p.off = start
		p.fail(CodeJSONSyntax, p.here(), "unterminated string; add the closing %q", `"`)
		return "", false, false
	}
	buf := make([]byte, 0, i-start+16)
	buf = append(buf, p.src[start+1:i]...)
	for i < len(p.src) {
		c := p.src[i]
		switch {
		case c == '"':
			p.off = i + 1
			return string(buf), true, true
		case c == '\\':
			n, ok := p.escape(&buf, i)
			if !ok {
				return "", false, false
			}
			i += n
		case c < 0x20:
			p.off = i
			p.fail(CodeJSONSyntax, p.here(), "control character %s inside a string; write it as an escape such as \\n", strconv.QuoteRune(rune(c)))
			return "", false, false
		default:
			buf = append(buf, c)
			i++
		}
	}
	p.off = start
	p.fail(CodeJSONSyntax, p.here(), "unterminated string; add the closing %q", `"`)
	return "", false, false
}

// escape decodes the escape at src[i] (a backslash) into buf and returns the
// number of source bytes it took.
func (p *scanner) escape(buf *[]byte, i int) (int, bool) {
	if i+1 >= len(p.src) {
		p.off = i
		p.fail(CodeJSONSyntax, p.here(), "unterminated string; add the closing %q", `"`)
		return 0, false
	}
	switch c := p.src[i+1]; c {
	case '"', '\\', '/':
		*buf = append(*buf, c)
	case 'b':
		*buf = append(*buf, '\b')
	case 'f':
		*buf = append(*buf, '\f')
	case 'n':
		*buf = append(*buf, '\n')
	case 'r':
		*buf = append(*buf, '\r')
	case 't':
		*buf = append(*buf, '\t')
	case 'u':
		r, ok := hex4(p.src, i+2)
		if !ok {
			p.off = i
			p.fail(CodeJSONSyntax, p.here(), "invalid \\u escape; write four hex digits, as in \\u00e9")
			return 0, false
		}
		n := 6
		if utf16.IsSurrogate(r) {
			r2, ok2 := rune(0), false
			if i+7 < len(p.src) && p.src[i+6] == '\\' && p.src[i+7] == 'u' {
				r2, ok2 = hex4(p.src, i+8)
			}
			if d := utf16.DecodeRune(r, r2); ok2 && d != utf8.RuneError {
				r, n = d, 12
			} else {
				r = utf8.RuneError
			}
		}
		*buf = utf8.AppendRune(*buf, r)
		return n, true
	default:
		p.off = i
		p.fail(CodeJSONSyntax, p.here(), "invalid escape %q in a string; JSON knows \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX", "\\"+string(rune(c)))
		return 0, false
	}
	return 2, true
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (p *scanner) number() *ast.Value {
	start := p.off
	if !p.scanNumber() {
		return nil
	}
	v := p.newValue(ast.Number)
	v.Str = p.text[start:p.off]
	v.Span = rng(start, p.off)
	return v
}

// scanNumber scans a number literal.
func (p *scanner) scanNumber() bool {
	start := p.off
	i := p.off
	if p.src[i] == '-' {
		i++
	}
	bad := func() bool {
		p.off = start
		p.fail(CodeJSONSyntax, rng(start, max(i, start+1)), "invalid number; write a JSON number such as 3, -1 or 2.5e3")
		return false
	}
	switch {
	case i < len(p.src) && p.src[i] == '0':
		i++
	case i < len(p.src) && isDigit(p.src[i]):
		for i < len(p.src) && isDigit(p.src[i]) {
			i++
		}
	default:
		return bad()
	}
	if i < len(p.src) && p.src[i] == '.' {
		i++
		if i >= len(p.src) || !isDigit(p.src[i]) {
			return bad()
		}
		for i < len(p.src) && isDigit(p.src[i]) {
			i++
		}
	}
	if i < len(p.src) && (p.src[i] == 'e' || p.src[i] == 'E') {
		i++
		if i < len(p.src) && (p.src[i] == '+' || p.src[i] == '-') {
			i++
		}
		if i >= len(p.src) || !isDigit(p.src[i]) {
			return bad()
		}
		for i < len(p.src) && isDigit(p.src[i]) {
			i++
		}
	}
	p.off = i
	return true
}

// StringOffsets maps the decoded bytes of the JSON string whose source
// (quotes included) is raw onto source offsets relative to the byte after the
// opening quote: the result has one entry per decoded byte plus one for the
// end. It is what CondSource.Offsets wants for an escaped condition.
func StringOffsets(raw []byte) []int {
	if len(raw) < 2 {
		return []int{0}
	}
	body := raw[1 : len(raw)-1]
	offs := make([]int, 0, len(body)+1)
	var tmp [utf8.UTFMax]byte
	for i := 0; i < len(body); {
		if body[i] != '\\' || i+1 >= len(body) {
			offs = append(offs, i)
			i++
			continue
		}
		n, dec := 2, 1
		switch body[i+1] {
		case 'u':
			r, ok := hex4(body, i+2)
			n = 6
			if ok && utf16.IsSurrogate(r) {
				if i+7 < len(body) && body[i+6] == '\\' && body[i+7] == 'u' {
					if r2, ok2 := hex4(body, i+8); ok2 && utf16.DecodeRune(r, r2) != utf8.RuneError {
						r, n = utf16.DecodeRune(r, r2), 12
					} else {
						r = utf8.RuneError
					}
				} else {
					r = utf8.RuneError
				}
			}
			dec = utf8.EncodeRune(tmp[:], r)
		}
		for k := 0; k < dec; k++ {
			offs = append(offs, i)
		}
		i += n
	}
	return append(offs, len(body))
}
