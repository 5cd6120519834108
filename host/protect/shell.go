package protect

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Bounds of one analysis, so that no script costs much.
const (
	maxDepth      = 8    // nested shells, wrappers and evals
	maxCwds       = 16   // directories relative paths are tried against
	maxBraceWords = 64   // words one brace expansion is read as
	maxSteps      = 4096 // commands and redirections read
	maxTokens     = 256  // tokens read in a script's unparsed rest
)

// script reads the commands of a shell script run with cwds as its
// possible working directories.
func (a *analyzer) script(src string, cwds []string, depth int) {
	if a.found != nil {
		return
	}
	if depth > maxDepth {
		a.truncated = true
		return
	}
	p := syntax.NewParser(syntax.Variant(syntax.LangBash))
	var stmts []*syntax.Stmt
	end := 0
	var perr error
	// No break: StmtsSeq of v3.14.1 yields its error a second time after
	// the loop has stopped, which panics.
	for st, err := range p.StmtsSeq(strings.NewReader(src)) {
		if err != nil || perr != nil || st == nil {
			perr = cmp.Or(perr, err)
			continue
		}
		stmts = append(stmts, st)
		if o := int(st.End().Offset()); o > end && o <= len(src) {
			end = o
		}
	}
	a.stmts(stmts, cwds, depth)
	if perr != nil && a.visit != nil {
		a.visitUnparsed(src[end:])
	}
	if perr != nil && a.found == nil {
		a.unparsed(src[end:], perr, cwds)
	}
}

// visitUnparsed gives visit the pieces of a script's rest that does not
// parse, as commands: a shell may still run them (bash runs a -c script
// command by command, and may take what mvdan.cc/sh refuses). The rest is
// cut at the characters that end or group commands, its words at white
// space, with quotes dropped.
func (a *analyzer) visitUnparsed(rest string) {
	pieces := strings.FieldsFunc(rest, func(r rune) bool { return strings.ContainsRune(";|&()`{}\n", r) })
	for i, p := range pieces {
		if i == maxTokens {
			a.truncated = true
			return
		}
		words := strings.Fields(strings.NewReplacer(`'`, "", `"`, "", `\`, "").Replace(p))
		if len(words) > 0 {
			a.visit(exactWords(words))
		}
	}
}

// unparsed refuses the rest of a script that does not parse when it names
// a protected path: what it would do cannot be read.
func (a *analyzer) unparsed(rest string, perr error, cwds []string) {
	tokens := strings.FieldsFunc(rest, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(";|&()<>`'\"$={}", r)
	})
	for i, t := range tokens {
		if i == maxTokens {
			return
		}
		if a.write(exactWord(t), false, cwds) {
			a.found.unparsed = perr.Error()
			return
		}
	}
}

// redirect checks one redirection that writes a file.
func (a *analyzer) redirect(r *syntax.Redirect, cwds []string, depth int) {
	if r.Word == nil || len(r.Word.Parts) == 0 {
		return
	}
	a.substs(r, cwds, depth)
	a.steps++
	w := convWord(r.Word)
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll,
		syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob, syntax.RdrInOut:
	case syntax.DplOut:
		// >&N and >&- duplicate or close a descriptor; >&FILE is &>FILE.
		if v, ok := w.exactVal(); ok && (v == "-" || strings.Trim(strings.TrimSuffix(v, "-"), "0123456789") == "") {
			return
		}
	default:
		return
	}
	a.via = fmt.Sprintf("redirection %q", r.Op.String())
	a.write(w, false, cwds)
}

// callWords returns the words of a simple command, brace expansions
// expanded.
func callWords(ce *syntax.CallExpr) []word {
	var words []word
	for _, arg := range ce.Args {
		if arg == nil || len(arg.Parts) == 0 {
			continue
		}
		// SplitBraces changes the word it is given: give it a copy, so the
		// tree being walked keeps no brace nodes.
		cp := &syntax.Word{Parts: slices.Clone(arg.Parts)}
		if !syntax.SplitBraces(cp) {
			words = append(words, convWord(arg))
			continue
		}
		n := 0
		for w, err := range expand.BracesSeq(nil, cp) {
			if err != nil || n == maxBraceWords {
				words = append(words, unknownWord)
				break
			}
			words = append(words, convWord(w))
			n++
		}
	}
	return words
}

// convWord reads a word of a script as far as it is known without running
// anything.
func convWord(w *syntax.Word) word {
	var val, pat strings.Builder
	glob := false
	lit := func(s string) {
		val.WriteString(s)
		pat.WriteString(escapeMeta(s))
	}
	open := func() word { return word{kind: wordOpen, pat: pat.String(), text: printWord(w)} }
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			s := p.Value
			if i == 0 && strings.HasPrefix(s, "~") {
				return unknownWord // a home directory
			}
			for j := 0; j < len(s); j++ {
				c := s[j]
				switch {
				case c == '\\' && j+1 < len(s):
					j++
					if s[j] != '\n' {
						lit(s[j : j+1])
					}
				case c == '*' || c == '?' || c == '[':
					glob = true
					val.WriteByte(c)
					pat.WriteByte(c)
				default:
					lit(s[j : j+1])
				}
			}
		case *syntax.SglQuoted:
			v := p.Value
			if p.Dollar {
				var known bool
				if v, _, known = ansiC(v, false); !known {
					return open()
				}
			}
			lit(v)
		case *syntax.DblQuoted:
			for _, dp := range p.Parts {
				l, ok := dp.(*syntax.Lit)
				if !ok {
					return open()
				}
				lit(unescapeDouble(l.Value))
			}
		default:
			return open()
		}
	}
	if glob {
		return word{kind: wordGlob, val: val.String(), pat: pat.String()}
	}
	return exactWord(val.String())
}

// printWord returns w as a script would write it.
func printWord(w *syntax.Word) string {
	var b strings.Builder
	if syntax.NewPrinter().Print(&b, w) != nil {
		return ""
	}
	return b.String()
}

// unescapeDouble removes the backslashes that escape within double quotes.
func unescapeDouble(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ansiC decodes the text of a $'…' word as bash does (its ansicstr): the
// escapes \a \b \e \E \f \n \r \t \v \\ \' \" \?, \NNN (one to three
// octal digits), \xHH (one or two hex digits), \uHHHH and \UHHHHHHHH (one
// to four or eight), \cX (a control character); any other escape keeps
// its backslash, and the word ends at a NUL byte (echo's does not). echo
// is echo -e's
// dialect: \0NNN takes up to three digits after the 0, \c ends all
// output (stop is then true), and \', \" and \? keep their backslash.
// A character past U+007F from \u or \U depends on the locale: known is
// then false.
func ansiC(s string, echo bool) (out string, stop, known bool) {
	var b strings.Builder
	known = true
	hex := func(c byte) (int, bool) {
		switch {
		case c >= '0' && c <= '9':
			return int(c - '0'), true
		case c >= 'a' && c <= 'f':
			return int(c-'a') + 10, true
		case c >= 'A' && c <= 'F':
			return int(c-'A') + 10, true
		}
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		c = s[i]
		switch c {
		case 'a':
			c = '\a'
		case 'b':
			c = '\b'
		case 'e', 'E':
			c = 0x1b
		case 'f':
			c = '\f'
		case 'n':
			c = '\n'
		case 'r':
			c = '\r'
		case 't':
			c = '\t'
		case 'v':
			c = '\v'
		case '\\':
		case '\'', '"', '?':
			if echo {
				b.WriteByte('\\')
			}
		case '0', '1', '2', '3', '4', '5', '6', '7':
			n, digits := int(c-'0'), 2
			switch {
			case echo && c == '0':
				digits = 3 // \0NNN: up to three digits after the 0
			case echo:
				b.WriteByte('\\') // echo knows no \NNN
				b.WriteByte(c)
				continue
			}
			for ; digits > 0 && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '7'; digits-- {
				i++
				n = n*8 + int(s[i]-'0')
			}
			c = byte(n & 0xff)
		case 'x':
			n, digits := 0, 0
			for ; digits < 2 && i+1 < len(s); digits++ {
				v, ok := hex(s[i+1])
				if !ok {
					break
				}
				i++
				n = n*16 + v
			}
			if digits == 0 {
				b.WriteByte('\\')
				break
			}
			c = byte(n)
		case 'u', 'U':
			max := 4
			if c == 'U' {
				max = 8
			}
			n, digits := 0, 0
			for ; digits < max && i+1 < len(s); digits++ {
				v, ok := hex(s[i+1])
				if !ok {
					break
				}
				i++
				n = n*16 + v
			}
			switch {
			case digits == 0:
				b.WriteByte('\\')
			case n > 0x7f:
				known = false
				b.WriteRune(rune(n))
				continue
			default:
				c = byte(n)
			}
		case 'c':
			if echo {
				return b.String(), true, known
			}
			if i+1 == len(s) {
				b.WriteByte('\\') // a \c at the end stays
				break
			}
			i++
			c = s[i]
			if c == '\\' && i+1 < len(s) && s[i+1] == '\\' {
				i++
			}
			if c == '?' {
				c = 0x7f
			} else {
				if c >= 'a' && c <= 'z' {
					c -= 'a' - 'A'
				}
				c &= 0x1f
			}
		default:
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	out = b.String()
	if n := strings.IndexByte(out, 0); n >= 0 && !echo {
		out = out[:n] // bash's strings end at a NUL; echo writes it
	}
	return out, false, known
}
