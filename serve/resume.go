package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/planc/planc/host"
)

// ResumePlan is the resume-plan tool's name (S29).
const ResumePlan = "resume-plan"

// resumeSchema is resume-plan's input schema: {"plan": N}, N optional.
const resumeSchema = `{
  "type": "object",
  "properties": {
    "plan": {"type": "integer", "minimum": 1, "description": "the plan to resume: N of plan-N (default: this connection's last plan)"}
  },
  "additionalProperties": false
}`

// resumeArgs are resume-plan's arguments.
type resumeArgs struct {
	Plan *int `json:"plan"`
}

// decodeResumeArgs reads resume-plan's arguments; msg says, in the tool's
// own words, what is wrong with them.
func decodeResumeArgs(raw json.RawMessage) (args resumeArgs, msg string) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return args, ""
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return args, "the arguments are not a JSON object"
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if k != "plan" {
			return args, fmt.Sprintf("%q is not one of its arguments", k)
		}
	}
	p, ok := m["plan"]
	if !ok || string(p) == "null" {
		return args, ""
	}
	var n int
	if err := json.Unmarshal(p, &n); err != nil {
		var f float64
		switch {
		case json.Unmarshal(p, &f) == nil:
			return args, fmt.Sprintf(`"plan" must be a whole number such as 1, not %s`, p)
		case len(p) > 0 && p[0] == '"':
			// The fix writes the string's text as the number only when it
			// is one ({"plan": "2"}: write {"plan": 2}).
			var str string
			if json.Unmarshal(p, &str) == nil {
				if k, err := strconv.Atoi(str); err == nil && k > 0 {
					return args, fmt.Sprintf(`"plan" must be a number, not the string %s; write {"plan": %d}`, p, k)
				}
			}
			return args, fmt.Sprintf(`"plan" must be a number such as 1, not the string %s`, p)
		}
		return args, fmt.Sprintf(`"plan" must be a number such as 1, not %s`, p)
	}
	args.Plan = &n
	return args, ""
}

// resumePlan is the resume-plan tool: redrive a plan of the connection's
// session as `planc run --resume` does, answer as submit-plan does.
func (c *conn) resumePlan(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	c.plans.Add(1)
	defer c.plans.Done()
	args, msg := decodeResumeArgs(arguments(req))
	if msg != "" {
		return errorResult(`resume-plan takes {"plan": N}, N a plan number of this session (or {} for the last plan): %s`, msg), nil
	}
	c.mu.Lock()
	dir, last := c.sessionDir, c.lastPlan
	c.mu.Unlock()
	n := last
	switch {
	case args.Plan != nil && *args.Plan < 1:
		return errorResult(`resume-plan: plan %d is not a plan number; plans are numbered from 1`, *args.Plan), nil
	case args.Plan != nil:
		n = *args.Plan
	case n == 0:
		return errorResult(`nothing to resume: this connection has run no plan yet; give {"plan": N} to resume plan N of its session`), nil
	}
	if dir == "" {
		return errorResult("nothing to resume: this connection has no session yet (it has run no plan)"), nil
	}
	cfg := c.hostConfig(nil, dir)
	cfg.RedrivePlan = n
	res, err := c.run(ctx, req, cfg)
	var re *host.RefusedError
	switch {
	case errors.As(err, &re) && len(re.Diagnostics) > 0:
		return errorResult("planc refused to resume plan %d; nothing ran. Checked again, its plan file (plans/plan-%d.json, plan:LINE:COL counts in it) has these problems with this capsule:\n%s", n, n, diagLines(planDiags(re.Source, re.Diagnostics))), nil
	case errors.As(err, &re):
		return errorResult("planc refused to resume plan %d; nothing ran: %s", n, re.Error()), nil
	case res == nil:
		return errorResult("planc failed to resume plan %d: %v", n, err), nil
	case err != nil && c.s.cfg.Notice != nil:
		c.s.cfg.Notice(fmt.Sprintf("plan %q: %v", res.Report.PlanID, err))
	}
	c.ranPlan(res.Plan.N)
	return reportResult(res, nil)
}

// describeResume is resume-plan's description.
func describeResume() string {
	return `Resume a plan of this connection that did not complete (a step failed, the call was cancelled, or planc died): the same plan, in the same session, not submitted again. Steps that succeeded are kept with their recorded outputs and do not run again; every other step runs again as if fresh (its condition evaluated again, its retries whole). Use it after fixing what made a step fail.
Arguments: {"plan": N} resumes plan-N of this session; {} resumes this connection's last plan. A plan that completed is refused, and so is one that is running.
The result is the report of the whole plan, as submit-plan returns it: {"plan_id", "completed", "canceled", "failed_step", "steps": [{"step_id", "status", "output", "error"}]}, the kept steps first. A plan that did not complete is an error result whose first text is its summary.`
}

// resumeTool is the resume-plan tool.
func resumeTool() *mcp.Tool {
	return &mcp.Tool{
		Name:         ResumePlan,
		Title:        "Resume a plan",
		Description:  describeResume(),
		InputSchema:  json.RawMessage(resumeSchema),
		OutputSchema: json.RawMessage(reportSchema),
	}
}
