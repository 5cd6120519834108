package check

import (
	"github.com/planc/planc/ast"
)

// ruleNoStepKind refuses a step declaring none of tool, shell, capsule (the
// seed: exactly one per step).
var ruleNoStepKind = Rule{
	Code:     "no-step-kind",
	Severity: ast.Error,
	Doc:      "a step declares none of tool, shell, capsule",
	Example:  `{"id": "a", "input": {"body": "hi"}}`,
	step: func(p *Pass, r *Rule, _ int, s *ast.Step) {
		if _, n := s.Kinds(); n != 0 {
			return
		}
		sp := s.Span
		if s.IDField() != nil {
			sp = s.IDField().KeySpan()
		}
		p.Bad[s.Index] = true
		p.report(r, s, sp, "", "%s declares none of \"tool\", \"shell\", \"capsule\"; add exactly one, e.g. \"tool\": \"notes\"", stepName(s))
	},
}

// ruleSeveralStepKinds refuses a step declaring more than one of tool,
// shell, capsule.
var ruleSeveralStepKinds = Rule{
	Code:     "several-step-kinds",
	Severity: ast.Error,
	Doc:      "a step declares more than one of tool, shell, capsule",
	Example:  `{"id": "a", "tool": "notes", "shell": "go test ./..."}`,
	step: func(p *Pass, r *Rule, _ int, s *ast.Step) {
		kinds, n := s.Kinds()
		if n < 2 {
			return
		}
		names := make([]string, n)
		for i, m := range kinds[:n] {
			names[i] = m.Name.String()
		}
		p.Bad[s.Index] = true
		p.report(r, s, kinds[1].KeySpan(), "", "%s declares %s; a step has exactly one of them, split it into one step each", stepName(s), ast.QuoteList(names, ""))
	},
}
