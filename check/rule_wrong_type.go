package check

import (
	"fmt"

	"github.com/planc/planc/ast"
)

// ruleWrongType refuses a field whose JSON type is not the one S3 gives it.
var ruleWrongType = Rule{
	Code:     "wrong-type",
	Severity: ast.Error,
	Doc:      "a field has the wrong JSON type (S3)",
	Example:  `{"id": "b", "tool": "notes", "depends_on": "a"}`,
	plan: func(p *Pass, r *Rule) {
		if m := p.Plan.IDField; m != nil && m.Value.Kind != ast.String {
			wrongType(p, r, nil, m.Value.Span, m.Value.Kind, `the plan's "id"`, "a string")
		}
		if m := p.Plan.StepsField; m != nil {
			if m.Value.Kind != ast.Array {
				wrongType(p, r, nil, m.Value.Span, m.Value.Kind, `"steps"`, "a list of step objects")
			} else {
				for _, e := range p.Plan.NotObjects {
					p.report(r, nil, e.Value.Span, "", "step %d must be an object, not %s; write {\"id\": \"…\", \"tool\": \"…\"}", e.Index+1, e.Value.Kind.Article())
				}
			}
		}
	},
	step: func(p *Pass, r *Rule, _ int, s *ast.Step) {
		if m := s.IDField(); m != nil && m.Kind != ast.String {
			wrongType(p, r, s, m.Span, m.Kind, `a step's "id"`, "a string")
		}
		kinds, n := s.Kinds()
		for _, m := range kinds[:n] {
			if m.Kind != ast.String {
				wrongType(p, r, s, m.Span, m.Kind, fmt.Sprintf("%q", m.Name.String()), "a string")
			}
		}
		// A capsule step's input of another kind is capsule-input's: the
		// seed lists it as a refusal of its own, and this rule's fix, an
		// object with any key, is one capsule-input would refuse (S13).
		if m := s.InputField(); m != nil && m.Kind != ast.Object && m.Kind != ast.String && s.Kind != ast.KindCapsule {
			wrongType(p, r, s, m.Span, m.Kind, `"input"`, "an object or a string")
		}
		if m := s.DependsOnField(); m != nil {
			if m.Kind != ast.Array {
				wrongType(p, r, s, m.Span, m.Kind, `"depends_on"`, "a list of step ids")
			} else {
				for _, e := range s.DependsOnOther() {
					wrongType(p, r, s, e.Span, e.Kind, `a "depends_on" entry`, "a step id string")
				}
			}
		}
		if m := s.IfField(); m != nil && m.Kind != ast.String {
			wrongType(p, r, s, m.Span, m.Kind, `"if"`, "a condition string")
		}
		if m := s.OnErrorField(); m != nil && m.Kind != ast.String {
			wrongType(p, r, s, m.Span, m.Kind, `"on_error"`, `one of "fail", "skip", "continue"`)
		}
		if m := s.RetriesField(); m != nil && m.Kind != ast.Number {
			wrongType(p, r, s, m.Span, m.Kind, `"retries"`, "an integer from 0 to 100")
		}
	},
}

// wrongType reports the value at sp, of kind k, the value of what, as not
// being fix, and marks s bad.
func wrongType(p *Pass, r *Rule, s *ast.Step, sp ast.Range, k ast.Kind, what, fix string) {
	if s != nil {
		p.Bad[s.Index] = true
	}
	p.report(r, s, sp, "", "%s must be %s, not %s; %s", what, fix, k.Article(), exampleFor(what))
}

// exampleFor gives the fix's example for a field's wrong-type message.
func exampleFor(what string) string {
	switch what {
	case `"steps"`:
		return `write "steps": [{"id": "…", "tool": "…"}]`
	case `"input"`:
		return `write "input": {"key": "value"}`
	case `"depends_on"`:
		return `write "depends_on": ["<step id>"]`
	case `"if"`:
		return `write "if": "$<step id>.status == 'success'"`
	case `"on_error"`:
		return `write "on_error": "continue"`
	case `"retries"`:
		return `write "retries": 2`
	}
	return "quote it"
}
