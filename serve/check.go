package serve

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/diag"
)

// PlanFile is the file name diagnostics give the plan: plan:LINE:COL.
const PlanFile = "plan"

// checkPlan is the check-plan tool: the diagnostics of `planc check
// --capsule` with the server's manifest, as text and as structured
// content. Finding errors is what a check is for, so the result is a
// failed one only when the check itself could not run.
func (c *conn) checkPlan(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	env, err := c.s.withMCP(ctx)
	if err != nil {
		return errorResult("planc could not list the tools of the capsule's MCP servers, so the plan was not checked: %v", err), nil
	}
	src := planText(arguments(req))
	_, found := env.Load(src)
	ds := planDiags(src, found)
	errs, warns := diag.Count(ds)
	accept, refuse := "submit-plan would accept this plan", "submit-plan would refuse this plan"
	if c.s.submitErr != nil {
		// No submit-plan here to name: the capsule may not submit plans.
		accept, refuse = "a capsule that may submit plans would accept this plan", "this plan would be refused"
	}
	var text string
	switch {
	case len(ds) == 0:
		text = "no problems: " + accept
	case errs == 0:
		text = fmt.Sprintf("%s; %s:\n%s", ast.Plural(warns, "warning"), accept, diagLines(ds))
	default:
		text = fmt.Sprintf("%s, %s; %s (plan:LINE:COL counts in the arguments re-indented with two spaces, one member per line):\n%s",
			ast.Plural(errs, "error"), ast.Plural(warns, "warning"), refuse, diagLines(ds))
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: text}},
		StructuredContent: diag.Summarize(ds),
	}, nil
}

// planDiags are ds of the plan text src, in `planc check`'s order.
func planDiags(src []byte, ds []ast.Diagnostic) []diag.Diagnostic {
	out := diag.Attach(&diag.File{Name: PlanFile, Src: src}, ds)
	diag.Sort(out)
	return out
}

// diagLines formats ds one a line, as the first line of each of `planc
// check`'s diagnostics: plan:LINE:COL: severity: message [code].
func diagLines(ds []diag.Diagnostic) string {
	var b strings.Builder
	for i, d := range ds {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(d.OneLine(d.File.Name))
	}
	return b.String()
}
