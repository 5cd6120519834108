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
		if len(s.Kinds) != 0 {
			return
		}
		sp := s.Span()
		if s.IDField != nil {
			sp = s.IDField.KeySpan()
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
		if len(s.Kinds) < 2 {
			return
		}
		names := make([]string, len(s.Kinds))
		for i, m := range s.Kinds {
			names[i] = m.Key
		}
		p.Bad[s.Index] = true
		p.report(r, s, s.Kinds[1].KeySpan(), "", "%s declares %s; a step has exactly one of them, split it into one step each", stepName(s), ast.QuoteList(names, ""))
	},
}
