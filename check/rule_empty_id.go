package check

import "github.com/planc/planc/ast"

// ruleEmptyID refuses an empty plan or step id (S3, S4: a non-empty string).
var ruleEmptyID = Rule{
	Code:     "empty-id",
	Severity: ast.Error,
	Doc:      "a plan or step id is the empty string (S3, S4)",
	Example:  `{"id": "", "tool": "notes"}`,
	plan: func(p *Pass, r *Rule) {
		if m := p.Plan.IDField; m != nil && m.Value.Kind == ast.String && m.Value.Str == "" {
			p.report(r, nil, m.Value.Span, "", "the plan's id is empty; name the plan, e.g. \"refresh-fixtures\"")
		}
	},
	step: func(p *Pass, r *Rule, _ int, s *ast.Step) {
		if m := s.IDField(); m != nil && m.Kind == ast.String && s.ID == "" {
			p.Bad[s.Index] = true
			p.report(r, s, m.Span, "", "%s has an empty id; give it a name unique in the plan, e.g. \"build\"", stepName(s))
		}
	},
}
