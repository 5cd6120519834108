package check

import (
	"slices"

	"github.com/planc/planc/ast"
)

// ruleUnknownTool refuses a tool step naming a tool that is not in the
// capsule's inventory (the seed's list). It needs capabilities.
var ruleUnknownTool = Rule{
	Code:      "unknown-tool",
	Severity:  ast.Error,
	Doc:       "a tool step names a tool that is not in the capsule's inventory",
	Example:   `{"id": "n", "tool": "note", "input": {"body": "hi"}}`,
	NeedsCaps: true,
	run: func(p *Pass, r *Rule) {
		if p.Caps.ToolsPending {
			return // the MCP servers' tools are not known yet
		}
		tools := slices.Clone(p.Caps.Tools)
		slices.Sort(tools)
		for _, s := range p.Plan.Steps {
			if s.Kind != ast.KindTool || s.Target == SubmitPlan || slices.Contains(tools, s.Target) {
				continue
			}
			sug := ast.Suggest(s.Target, tools)
			fix := didYouMean(sug)
			switch {
			case sug != "":
			case len(tools) == 0:
				fix = "; the capsule has no tools"
			default:
				fix = "; the capsule has " + quoteList(tools)
			}
			p.report(r, s, s.TargetField.Value.Span, sug, "tool %q is not in the capsule's inventory%s", s.Target, fix)
		}
	},
}
