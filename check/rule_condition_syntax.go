package check

import "github.com/planc/planc/ast"

// ruleConditionSyntax refuses an if that does not parse under S10's
// grammar: empty, a bare operand, a chained comparison, parentheses, !, >=,
// <=, numbers, unquoted words, an unterminated literal.
var ruleConditionSyntax = Rule{
	Code:     "condition-syntax",
	Severity: ast.Error,
	Doc:      "an if condition does not parse (S10)",
	Example:  `{"id": "n", "tool": "notes", "if": "$t.status == failed"}`,
	on:       onCondErr,
	step: func(p *Pass, r *Rule, _ int, s *ast.Step) {
		if e := s.CondErr; e != nil {
			p.Bad[s.Index] = true
			p.report(r, s, e.Span, e.Suggestion, "%s", e.Message)
		}
	},
}
