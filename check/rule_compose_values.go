package check

import (
	"fmt"
	"maps"
	"slices"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/internal/composetext"
)

// ruleComposeValues refuses a step of the built-in tool compose whose
// template does not parse, names a placeholder "values" does not give, or
// leaves a value unused: the tool would refuse the same input at run
// time. It reads a literal template and a literal "values" object only; a
// template that is a reference is the tool's to read. The shape of the
// input (strings, required members) is tool-input's.
var ruleComposeValues = Rule{
	Code:     "compose-values",
	Severity: ast.Error,
	Doc:      "a compose step's template does not parse, has a placeholder without a value, or a value it does not use",
	Example:  `{"id": "c", "tool": "compose", "input": {"template": "tests: {status}", "values": {"state": "$t.status"}}}`,
	on:       onTool | onInput,
	step: func(p *Pass, r *Rule, _ int, s *ast.Step) {
		if s.Kind != ast.KindTool || s.Target != "compose" || s.Input == nil || s.Input.Kind != ast.Object {
			return
		}
		in := s.Input
		tm, vm := in.Get("template"), in.Get("values")
		if tm == nil || tm.Value.Kind != ast.String || tm.Value.Ref() != nil || vm == nil || vm.Value.Kind != ast.Object {
			return
		}
		parts, err := composetext.Parse(tm.Value.Str)
		if err != nil {
			p.report(r, s, tm.Value.Span, "", "compose: %v", err)
			return
		}
		names := composetext.Names(parts)
		values := map[string]*ast.Member{}
		for _, m := range vm.Value.Members() {
			values[m.Key] = m
		}
		var unused []string
		for _, k := range slices.Sorted(maps.Keys(values)) {
			if !slices.Contains(names, k) {
				unused = append(unused, k)
			}
		}
		for _, n := range names {
			if values[n] != nil {
				continue
			}
			sug := ast.Suggest(n, unused)
			fix := fmt.Sprintf(`add "%s": "…" to "values"`, n)
			if sug != "" {
				fix = fmt.Sprintf(`did you mean value %q? rename it to %q, or add "%s": "…" to "values"`, sug, n, n)
			}
			p.report(r, s, tm.Value.Span, "", "compose: placeholder {%s} has no value; %s", n, fix)
		}
		for _, k := range unused {
			if !composetext.ValidName(k) {
				// No placeholder can name it: tool-input refuses the key
				// itself, and "add {b c}" would be a fix the template
				// then refuses.
				continue
			}
			sug := ast.Suggest(k, names)
			fix := fmt.Sprintf("add {%s} to the template or remove the value", k)
			if sug != "" {
				fix = fmt.Sprintf("did you mean placeholder {%s}? %s", sug, fix)
			}
			p.report(r, s, values[k].KeySpan(), "", "compose: value %q is not used by the template; %s", k, fix)
		}
	},
}
