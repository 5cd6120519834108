package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/diag"
	"github.com/planc/planc/host"
	"github.com/planc/planc/host/session"
)

// planText is the plan a tool call carries: its arguments, re-indented
// with two spaces (json.Indent changes only the white space, so duplicate
// keys, number spellings and member order stay as the client sent them).
// Diagnostics' positions refer to this text, and it is what a run writes
// to plans/plan-<n>.json.
func planText(args json.RawMessage) []byte {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("null")
	}
	var b bytes.Buffer
	if err := json.Indent(&b, args, "", "  "); err != nil {
		return append([]byte(nil), args...) // not JSON: the parser says so
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// arguments returns a tool call's raw arguments.
func arguments(req *mcp.CallToolRequest) json.RawMessage {
	if req.Params == nil {
		return nil
	}
	return req.Params.Arguments
}

// submitPlan is the submit-plan tool: validate, run as `planc run` does,
// answer with the report.
func (c *conn) submitPlan(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	c.plans.Add(1)
	defer c.plans.Done()
	src := planText(arguments(req))
	// Checked here first, with check-plan's capabilities (the MCP
	// servers' tools and input schemas included), so that a refused plan
	// makes no session and submit-plan refuses exactly what check-plan
	// finds. The servers started for the run list their tools again
	// (host.Run), and a plan refused then leaves nothing either (settle).
	env, err := c.s.withMCP(ctx)
	if err != nil {
		return errorResult("planc could not list the tools of the capsule's MCP servers, so the plan was not checked and nothing ran: %v", err), nil
	}
	plan, found := env.Load(src)
	if plan == nil {
		return refusedResult(planDiags(src, found)), nil
	}
	dir, err := c.session()
	if err != nil {
		return errorResult("planc could not open the session, so nothing ran: %v", err), nil
	}
	res, err := c.run(ctx, req, c.hostConfig(plan, dir))
	var re *host.RefusedError
	c.settle(errors.As(err, &re))
	switch {
	case errors.As(err, &re) && len(re.Diagnostics) > 0:
		return refusedResult(planDiags(re.Source, re.Diagnostics)), nil
	case errors.As(err, &re):
		return errorResult("planc refused the plan before any step ran: %s", re.Error()), nil
	case res == nil:
		return errorResult("planc failed to run the plan: %v", err), nil
	case err != nil && c.s.cfg.Notice != nil:
		c.s.cfg.Notice(fmt.Sprintf("plan %q: %v", res.Report.PlanID, err))
	}
	c.ranPlan(res.Plan.N)
	return reportResult(res, planDiags(src, found))
}

// run runs cfg for a tool call as host.Run does, under the call's plan
// context, with a progress notification per settled step when the call
// asked for them.
func (c *conn) run(ctx context.Context, req *mcp.CallToolRequest, cfg host.Config) (*host.Result, error) {
	ctx, cancel := c.planContext(ctx)
	defer cancel()
	var p *progress
	if tok := req.Params.GetProgressToken(); tok != nil && req.Session != nil {
		p = newProgress(ctx, req.Session, tok)
		cfg.Observe = p.observe
	}
	res, err := host.Run(ctx, cfg)
	p.close()
	return res, err
}

// reportResult is the result of a plan that ran: the report as structured
// content and as JSON text, preceded by the summary when the plan did not
// complete (a failed tool result), followed by any warnings. Its _meta
// names the session, the plan file and the task.
func reportResult(res *host.Result, warnings []diag.Diagnostic) (*mcp.CallToolResult, error) {
	b, err := res.Report.JSON()
	if err != nil {
		return nil, err
	}
	report := json.RawMessage(bytes.TrimSpace(b))
	r := &mcp.CallToolResult{StructuredContent: report}
	if res.Report.Failed {
		r.IsError = true
		r.Content = append(r.Content, &mcp.TextContent{Text: res.Report.Summary})
	}
	r.Content = append(r.Content, &mcp.TextContent{Text: string(report)})
	if len(warnings) > 0 {
		r.Content = append(r.Content, &mcp.TextContent{Text: "warnings:\n" + diagLines(warnings)})
	}
	r.Meta = mcp.Meta{
		"session":   res.Session.Dir,
		"plan_file": filepath.Join(res.Session.Dir, res.Plan.Rel),
		"task_id":   session.TaskID(res.Plan.N),
	}
	return r, nil
}

// refusedResult is the failed tool result of a refused plan: one line per
// diagnostic, as `planc check` prints its first line. It has no
// structured content: clients hold structured content to the output
// schema, the report's, even in a failed result (check-plan gives the
// diagnostics structured).
func refusedResult(ds []diag.Diagnostic) *mcp.CallToolResult {
	errs, warns := diag.Count(ds)
	head := fmt.Sprintf("planc refused the plan; nothing ran. %s, %s (plan:LINE:COL counts in the arguments re-indented with two spaces, one member per line):", ast.Plural(errs, "error"), ast.Plural(warns, "warning"))
	return errorResult("%s\n%s", head, diagLines(ds))
}
