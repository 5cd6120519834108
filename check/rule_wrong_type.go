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
			wrongType(p, r, nil, m.Value, `the plan's "id"`, "a string")
		}
		if m := p.Plan.StepsField; m != nil {
			if m.Value.Kind != ast.Array {
				wrongType(p, r, nil, m.Value, `"steps"`, "a list of step objects")
			} else {
				for i, e := range m.Value.Elems() {
					if e.Kind != ast.Object {
						p.report(r, nil, e.Span, "", "step %d must be an object, not %s; write {\"id\": \"…\", \"tool\": \"…\"}", i+1, e.Kind.Article())
					}
				}
			}
		}
	},
	step: func(p *Pass, r *Rule, _ int, s *ast.Step) {
		if m := s.IDField; m != nil && m.Value.Kind != ast.String {
			wrongType(p, r, s, m.Value, `a step's "id"`, "a string")
		}
		for _, m := range s.Kinds {
			if m.Value.Kind != ast.String {
				wrongType(p, r, s, m.Value, fmt.Sprintf("%q", m.Key), "a string")
			}
		}
		if m := s.InputField; m != nil && m.Value.Kind != ast.Object && m.Value.Kind != ast.String {
			wrongType(p, r, s, m.Value, `"input"`, "an object or a string")
		}
		if m := s.DependsOnField; m != nil {
			if m.Value.Kind != ast.Array {
				wrongType(p, r, s, m.Value, `"depends_on"`, "a list of step ids")
			} else {
				for _, e := range m.Value.Elems() {
					if e.Kind != ast.String {
						wrongType(p, r, s, e, `a "depends_on" entry`, "a step id string")
					}
				}
			}
		}
		if m := s.IfField; m != nil && m.Value.Kind != ast.String {
			wrongType(p, r, s, m.Value, `"if"`, "a condition string")
		}
		if m := s.OnErrorField; m != nil && m.Value.Kind != ast.String {
			wrongType(p, r, s, m.Value, `"on_error"`, `one of "fail", "skip", "continue"`)
		}
		if m := s.RetriesField; m != nil && m.Value.Kind != ast.Number {
			wrongType(p, r, s, m.Value, `"retries"`, "an integer from 0 to 100")
		}
	},
}

// wrongType reports v, the value of what, as not being fix, and marks s bad.
func wrongType(p *Pass, r *Rule, s *ast.Step, v *ast.Value, what, fix string) {
	if s != nil {
		p.Bad[s.Index] = true
	}
	p.report(r, s, v.Span, "", "%s must be %s, not %s; %s", what, fix, v.Kind.Article(), exampleFor(what))
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
