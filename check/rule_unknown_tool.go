package check

import (
	"slices"
	"strconv"

	"github.com/planc/planc/ast"
)

// ruleUnknownTool refuses a tool step naming a tool that is not in the
// capsule's inventory (docs/plans.md, "What is refused before anything
// runs"). Its fix names the manifest and where to grant the tool:
// tools.builtin for a built-in tool, else an MCP server in tools.mcp. It
// needs capabilities.
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
	on: onTool,
	step: func(p *Pass, r *Rule, _ int, s *ast.Step) {
		if p.Caps.ToolsPending {
			return // the MCP servers' tools are not known yet
		}
		if s.Kind != ast.KindTool || s.Target == SubmitPlan || slices.Contains(p.tools, s.Target) {
			return
		}
		sug := ast.Suggest(s.Target, p.tools)
		var has string // the tools that exist, even beside a did-you-mean
		switch {
		case len(p.tools) == 0:
			has = ", which has no tools"
		default:
			has = ", which has " + ast.QuoteList(p.tools, "")
		}
		fix := p.Caps.grant("an MCP server offering "+strconv.Quote(s.Target), "tools.mcp")
		if slices.Contains(ast.BuiltinTools(), s.Target) {
			fix = p.Caps.grant(strconv.Quote(s.Target), "tools.builtin")
		}
		where := p.Caps.of()
		if where == "" {
			where = " of the capsule"
		}
		if s.Target == "" {
			// No tool is offered under no name: the fix is to name one.
			p.report(r, s, s.TargetField().Span, "", "tool step %q names no tool: \"tool\" is empty; name one of the tools%s%s", s.ID, where, has)
			return
		}
		p.report(r, s, s.TargetField().Span, sug, "tool %q is not among the tools%s%s%s; %s", s.Target, where, has, meant(sug), fix)
	},
}
