package check

import "github.com/planc/planc/ast"

// planFields and stepFields are the fields a plan and a step may have
// (docs/plans.md, "The plan" and "Steps"; S2).
var (
	planFields = [...]string{"id", "steps"}
	stepFields = [...]string{"id", "tool", "shell", "capsule", "input", "depends_on", "if", "on_error", "retries"}
)

// ruleUnknownField refuses fields the plan format does not define in the plan
// or a step (docs/plans.md, "The plan" and "Steps"; S2): silently ignoring
// "dependson" would run steps in the wrong order.
var ruleUnknownField = Rule{
	Code:     "unknown-field",
	Severity: ast.Error,
	Doc:      "a field the plan format does not define, in the plan or a step (S2)",
	Example:  `{"id": "b", "tool": "notes", "depends-on": ["a"]}`,
	plan: func(p *Pass, r *Rule) {
		for _, m := range p.Plan.Object.Members() {
			if !isOneOf(m.Key, planFields[:]) {
				s := ast.Suggest(m.Key, planFields[:])
				extra := didYouMean(s)
				if s == "" && isOneOf(m.Key, stepFields[:]) {
					extra = "; it is a step field, move it into a step"
				} else if s == "" {
					extra = "; a plan has only \"id\" and \"steps\""
				}
				p.report(r, nil, m.KeySpan(), s, "unknown field %q in the plan%s", m.Key, extra)
			}
		}
	},
	step: func(p *Pass, r *Rule, _ int, st *ast.Step) {
		k := 0
		for i := range st.Fields {
			m := &st.Fields[i]
			if m.Name != ast.FieldUnknown {
				continue
			}
			key := st.UnknownKeys()[k]
			k++
			s := ast.Suggest(key, stepFields[:])
			extra := didYouMean(s)
			if s == "" {
				extra = "; a step has id, tool, shell, capsule, input, depends_on, if, on_error, retries"
			}
			p.report(r, st, m.KeySpan(), s, "unknown field %q in %s%s", key, stepName(st), extra)
		}
	},
}

func isOneOf(s string, set []string) bool {
	for _, x := range set {
		if x == s {
			return true
		}
	}
	return false
}
