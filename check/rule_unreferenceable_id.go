package check

import (
	"unicode/utf8"

	"github.com/planc/planc/ast"
)

// ruleUnreferenceableID warns for a step id with a character outside
// [A-Za-z0-9_-]: it is allowed, but no reference can name it (S4). It also
// warns, at the string, for a string in input that reads as a reference to
// such an id ("$ü.output"): it is not a reference, so it stays plain text.
// In an if the same text is a refusal (condition-syntax).
var ruleUnreferenceableID = Rule{
	Code:     "unreferenceable-id",
	Severity: ast.Warning,
	Doc:      "a step id has a character outside [A-Za-z0-9_-], so no reference can name it, or a string in input reads as a reference to such an id (S4)",
	Example:  `{"id": "run tests", "shell": "go test ./..."}`,
	step: func(p *Pass, r *Rule, _ int, s *ast.Step) {
		for _, c := range s.ID {
			if c >= utf8.RuneSelf || !isIDByte(byte(c)) {
				p.report(r, s, s.IDField.Value.Span, "", "step id %q has %q, so no reference can name it; use only letters, digits, _ and -", s.ID, c)
				break
			}
		}
		if s.InputField == nil {
			return
		}
		ast.Walk(s.InputField.Value, func(v *ast.Value) bool {
			if v.Kind != ast.String || v.Ref != nil {
				return true
			}
			if n, id, bad, ok := ast.UnreferenceableRef(v.Str); ok && n == len(v.Str) {
				fix := "name a step whose id uses only those characters"
				if p.byID.lookup(id) >= 0 {
					fix = "rename step " + quoteList([]string{id}) + " with those characters"
				}
				p.report(r, s, v.Span, "", "%q is not a reference and stays plain text: the step id %q has %q, and a reference names only ids of letters, digits, _ and - (S4); %s", v.Str, id, bad, fix)
			}
			return true
		})
	},
}
