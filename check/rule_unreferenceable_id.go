package check

import (
	"unicode/utf8"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/parser"
)

// ruleUnreferenceableID warns for a step id with a character outside
// [A-Za-z0-9_-]: it is allowed, but no reference can name it (S4).
var ruleUnreferenceableID = Rule{
	Code:     "unreferenceable-id",
	Severity: ast.Warning,
	Doc:      "a step id has a character outside [A-Za-z0-9_-], so no reference can name it (S4)",
	Example:  `{"id": "run tests", "shell": "go test ./..."}`,
	step: func(p *Pass, r *Rule, _ int, s *ast.Step) {
		for _, c := range s.ID {
			if c >= utf8.RuneSelf || !parser.IsRefIDByte(byte(c)) {
				p.report(r, s, s.IDField().Span, "", "step id %q has %q, so no reference can name it; use only letters, digits, _ and -", s.ID, c)
				break
			}
		}
	},
}
