package check

import (
	"slices"

	"github.com/planc/planc/ast"
)

// ruleUnknownTool refuses a tool step naming a tool that is not in the
// capsule's inventory (docs/plans.md, "What is refused before anything
// runs"). It needs capabilities.
var ruleUnknownTool = Rule{
	Code:      "unknown-tool",
	Severity:  ast.Error,
	Doc:       "a tool step names a tool that is not in the capsule's inventory",
	Example:   `{"id": "n", "tool": "note", "input": {"body": "hi"}}`,
	NeedsCaps: true,
	plan: func(p *Pass, r *Rule) {
		p.tools = append(p.tools[:0], p.Caps.Tools...)
		slices.Sort(p.tools)
	},
	step: func(p *Pass, r *Rule, _ int, s *ast.Step) {
		if p.Caps.ToolsPending {
			return // the MCP servers' tools are not known yet
		}
		if s.Kind != ast.KindTool || s.Target == SubmitPlan || slices.Contains(p.tools, s.Target) {
			return
		}
		sug := ast.Suggest(s.Target, p.tools)
		fix := didYouMean(sug)
		switch {
		case sug != "":
		case len(p.tools) == 0:
			fix = "; the capsule has no tools"
		default:
			fix = "; the capsule has " + ast.QuoteList(p.tools, "")
		}
		p.report(r, s, s.TargetField.Value.Span, sug, "tool %q is not in the capsule's inventory%s", s.Target, fix)
	},
}
