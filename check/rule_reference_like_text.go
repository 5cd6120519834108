package check

import (
	"fmt"
	"strings"

	"github.com/planc/planc/ast"
)

// ruleReferenceLikeText warns for a string in input that contains something
// shaped like a reference without being one as a whole (S6): "see
// $a.output" is plain text and is never substituted. A string that reads
// as a reference to an id no reference can name ("$ü.output", S4) is not
// one either: the warning says so, at the string, and names the characters
// a referenced id may have. In an if the same text is a refusal
// (condition-syntax).
var ruleReferenceLikeText = Rule{
	Code:     "reference-like-text",
	Severity: ast.Warning,
	Doc:      "a string contains a reference-shaped word but is not exactly a reference, or names an id no reference can name, so it is not substituted (S4, S6)",
	Example:  `{"id": "n", "tool": "notes", "input": {"body": "log: $t.output"}}`,
	on:       onInput,
	step: func(p *Pass, r *Rule, _ int, s *ast.Step) {
		if s.Input == nil {
			return
		}
		ast.Walk(s.Input, func(v *ast.Value) bool {
			if v.Kind != ast.String || v.Ref() != nil {
				return true
			}
			if n, id, bad, ok := ast.UnreferenceableRef(v.Str); ok && n == len(v.Str) {
				if p.byID.lookup(id) >= 0 {
					p.report(r, s, v.Span, "", "%q is not a reference and stays plain text: the step id %q has %q, and a reference names only ids of letters, digits, _ and - (S4); rename step %s with those characters", v.Str, id, bad, ast.QuoteList([]string{id}, ""))
					return true
				}
				// No step has that id: the likelier intent is a part of a
				// step's output ("$a.b.output" for step a), which no
				// reference reads.
				fix := "name a step whose id uses only those characters"
				if head := id[:strings.IndexRune(id, bad)]; head != "" && p.byID.lookup(head) >= 0 {
					fix = fmt.Sprintf("a reference reads a step's whole output or status, no part of it: write \"$%s%s\"", head, v.Str[1+len(id):])
				}
				p.report(r, s, v.Span, "", "%q is not a reference and stays plain text: no step is named %q, and a reference names only ids of letters, digits, _ and - (S4), which %q is not; %s", v.Str, id, id, fix)
			} else if containsRefShape(v.Str) {
				p.report(r, s, v.Span, "", "%q contains a reference but is not one: only a string that is exactly $<id>.output or $<id>.status is substituted; make the reference the whole string", v.Str)
			}
			return true
		})
	},
}
