package check

import "github.com/planc/planc/ast"

// ruleCapsuleInput refuses a capsule step whose input is absent, or neither a
// string nor {"objective": "<text>"} (docs/plans.md; S13).
var ruleCapsuleInput = Rule{
	Code:     "capsule-input",
	Severity: ast.Error,
	Doc:      `a capsule step's input is absent or not a string or {"objective": "<text>"} (S13)`,
	Example:  `{"id": "w", "capsule": "worker", "input": {"task": "x"}}`,
	on:       onCapsule,
	step: func(p *Pass, r *Rule, _ int, s *ast.Step) {
		const fix = `write "input": "<task text>" or "input": {"objective": "<task text>"}`
		if s.Kind != ast.KindCapsule {
			return
		}
		m := s.InputField()
		if m == nil {
			p.report(r, s, s.TargetField().KeySpan(), "", "capsule %s has no input: the input is its task text; %s", stepName(s), fix)
			return
		}
		v := s.Input
		switch v.Kind {
		case ast.String:
			return // the task text
		case ast.Object:
		default:
			// wrong-type leaves a capsule step's input to this rule.
			p.Bad[s.Index] = true
			p.report(r, s, v.Span, "", "a capsule step's input must be a string or an object with one key, \"objective\", not %s; %s", v.Kind.Article(), fix)
			return
		}
		if len(v.Members()) == 1 && v.Members()[0].Key == "objective" {
			if v.Members()[0].Value.Kind != ast.String {
				p.report(r, s, v.Members()[0].Value.Span, "", "a capsule step's objective must be a string, not %s; %s", v.Members()[0].Value.Kind.Article(), fix)
			}
			return
		}
		for _, mm := range v.Members() {
			if mm.Key != "objective" {
				sug := ast.Suggest(mm.Key, []string{"objective"})
				hint := ""
				if sug != "" {
					hint = " (a misspelt \"objective\"?)"
				}
				p.report(r, s, mm.KeySpan(), sug, "a capsule step's input object has only %q, not %q%s; %s", "objective", mm.Key, hint, fix)
				break
			}
		}
		if len(v.Members()) == 0 {
			p.report(r, s, v.Span, "", "a capsule step's input object is empty; %s", fix)
		}
	},
}
