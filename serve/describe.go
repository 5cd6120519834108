package serve

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/host/tools"
	"github.com/planc/planc/host/toolschema"
)

// planSchema is docs/schema/plan.schema.json, byte for byte (a test holds
// the copy to the original): the input schema of both tools, since their
// arguments are the plan.
//
//go:embed plan.schema.json
var planSchema []byte

// The tools' names.
const (
	SubmitPlan = "submit-plan"
	CheckPlan  = "check-plan"
)

// reportSchema is submit-plan's output schema: the report of docs/plans.md,
// "The report". It is
// plain JSON Schema without $schema, so that clients validating it with a
// draft-07 validator compile it too.
const reportSchema = `{
  "type": "object",
  "required": ["plan_id", "completed", "canceled", "failed_step", "steps"],
  "properties": {
    "plan_id": {"type": "string"},
    "completed": {"type": "boolean"},
    "canceled": {"type": "boolean"},
    "failed_step": {"type": ["string", "null"]},
    "steps": {
      "type": "array",
      "items": {
        "type": "object",
        "required": ["step_id", "status", "output", "error"],
        "properties": {
          "step_id": {"type": "string"},
          "status": {"enum": ["success", "failed", "skipped"]},
          "output": {"type": ["string", "null"]},
          "error": {"type": ["string", "null"]}
        }
      }
    }
  }
}`

// diagnosticsSchema is check-plan's output schema: the diagnostics as
// `planc check --format json` prints them, in an object.
const diagnosticsSchema = `{
  "type": "object",
  "required": ["diagnostics", "errors", "warnings"],
  "properties": {
    "errors": {"type": "integer"},
    "warnings": {"type": "integer"},
    "diagnostics": {
      "type": "array",
      "items": {
        "type": "object",
        "required": ["file", "line", "col", "end_line", "end_col", "severity", "code", "message", "step"],
        "properties": {
          "file": {"type": "string"},
          "line": {"type": "integer"},
          "col": {"type": "integer"},
          "end_line": {"type": "integer"},
          "end_col": {"type": "integer"},
          "severity": {"enum": ["error", "warning"]},
          "code": {"type": "string"},
          "message": {"type": "string"},
          "step": {"type": ["string", "null"]},
          "suggestion": {"type": "string"}
        }
      }
    }
  }
}`

// planFormat teaches an agent the plan format: it is all an agent reads
// before writing a plan, so it is complete and short.
const planFormat = `The arguments ARE the plan: {"id": "<plan id>", "steps": [<step>, ...]}.
A step: {"id": "<unique id>", exactly one of "tool": "<tool name>" | "shell": "<command line>" | "capsule": "<bare capsule name>", "input": a tool's JSON input object, or a capsule's task text (a string or {"objective": "<text>"}), "depends_on": ["<step id>", ...], "if": "<condition>", "on_error": "fail" | "skip" | "continue", "retries": <0-100>}.
References: a string that is wholly "$<step id>.output" or "$<step id>.status" (success, failed or skipped), anywhere in input or in if, is replaced by that step's result when the step starts; list that step in depends_on so it has settled by then.
Conditions: comparisons of references and quoted literals with == != > < (text comparison), joined by && and ||, e.g. "$test.status == 'failed' || $lint.output != ''"; a false condition settles the step skipped.
Failure: on_error fail (the default) stops the plan, undispatched steps never run; skip settles the step skipped and goes on; continue settles it failed and goes on. retries are extra attempts before on_error applies.
Steps run as soon as their dependencies settle: shell and capsule steps at once, tool steps one at a time. A shell line is split into words without a shell (quote a pipeline: sh -c 'a | b'); its first word must be an allowed binary.
Refused before anything runs: a duplicate step id; none or several of tool/shell/capsule; a tool not offered; a tool input its input schema refuses; submit-plan as a tool; a shell binary not allowed; a capsule input that is not a string or {"objective": ...}; depends_on or a reference naming an undeclared step; a reference field other than output/status; an unknown on_error; a dependency cycle.`

// describeSubmit is submit-plan's description: what it does, the plan
// format, and what this capsule offers a plan.
func describeSubmit(m *ast.Manifest, infos []tools.ToolInfo, listErr error) string {
	return `Run a whole plan - a dependency graph of steps - in one call, and get one report back when every step has settled.
` + planFormat + `
The result is the report {"plan_id", "completed", "canceled", "failed_step", "steps": [{"step_id", "status", "output", "error"}]}. A plan that did not complete is an error result whose first text is its summary; a refused plan is an error result listing each problem as plan:LINE:COL (positions in the arguments re-indented with two spaces, one member per line). Cancelling the call cancels the plan. Every plan of this connection runs in one session, numbered plan-1, plan-2, ...; resume-plan runs again what a plan that did not complete left undone.
` + offers(m, infos, listErr)
}

// describeCheck is check-plan's description.
func describeCheck(m *ast.Manifest, infos []tools.ToolInfo, listErr error) string {
	return `Check a plan without running it: every problem a plan is refused for (by submit-plan, where this capsule offers it), and the warnings, each as plan:LINE:COL: severity: message [code] (positions in the arguments re-indented with two spaces, one member per line). Its arguments are the plan itself.
` + planFormat + `
` + offers(m, infos, listErr)
}

// builtinInput describes the input of the built-in tool name from its
// schema (host/toolschema), the one the tool itself and check's
// tool-input rule hold it to; "" for a name that is no built-in tool.
func builtinInput(name string) string {
	tool, ok := toolschema.Describe(name)
	if !ok {
		return ""
	}
	var b strings.Builder
	b.WriteString(tool.Description)
	if tool.Others != nil {
		b.WriteString(" Its input is an object with these members:")
	} else {
		b.WriteString(" Its input is an object with these members and no other:")
	}
	for _, f := range tool.Fields {
		req := "optional"
		if f.Required {
			req = "required"
		}
		fmt.Fprintf(&b, "\n  - %q (%s, %s): %s", f.Name, strings.Join(f.Types, " or "), req, f.Description)
	}
	if o := tool.Others; o != nil {
		fmt.Fprintf(&b, "\n  - any other member (%s, optional): %s", strings.Join(o.Types, " or "), o.Description)
	}
	return b.String()
}

// offers says what the capsule's manifest lets a plan reach: its tools,
// shell binaries and sub-capsules.
func offers(m *ast.Manifest, infos []tools.ToolInfo, listErr error) string {
	var b strings.Builder
	b.WriteString("This capsule offers:")
	tools := slices.Sorted(slices.Values(ast.Names(m.Tools.Builtin)))
	for _, t := range slices.Compact(tools) {
		if in := builtinInput(t); in != "" {
			fmt.Fprintf(&b, "\n- tool %s: %s", t, in)
		} else {
			fmt.Fprintf(&b, "\n- tool %s", t)
		}
	}
	if len(m.Tools.MCP) > 0 {
		b.WriteString(mcpOffers(m, infos, listErr))
	}
	if len(tools) == 0 && len(m.Tools.MCP) == 0 {
		b.WriteString("\n- no tools")
	}
	b.WriteString("\n- shell binaries: " + list(ast.Names(m.Capabilities.ShellAllow)))
	b.WriteString("\n- capsules: " + list(ast.Names(m.Capabilities.SpawnAllow)))
	return b.String()
}

// list joins names for a description, "none" for none.
func list(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// instructions are the server's instructions to a connecting client.
// instructionsCheckOnly are the instructions of a server without
// submit-plan (its capsule is not granted capabilities.plan.submit).
const instructionsCheckOnly = `planc checks plans here, and runs none: this capsule is not granted capabilities.plan.submit. check-plan checks a plan without running it; list-tools lists every tool a plan may call, with its input schema. check-plan's description gives the plan format.`

const instructions = `planc runs plans: submit-plan takes a whole dependency graph of tool, shell and sub-capsule steps and returns one report once every step has settled; check-plan checks a plan without running it; list-tools lists every tool a plan may call, with its input schema; resume-plan resumes a plan that did not complete, keeping the steps that succeeded. Their descriptions give the plan format.`

// submitTool is the submit-plan tool.
func submitTool(m *ast.Manifest, infos []tools.ToolInfo, listErr error) *mcp.Tool {
	return &mcp.Tool{
		Name:         SubmitPlan,
		Title:        "Submit a plan",
		Description:  describeSubmit(m, infos, listErr),
		InputSchema:  json.RawMessage(planSchema),
		OutputSchema: json.RawMessage(reportSchema),
	}
}

// checkTool is the check-plan tool.
func checkTool(m *ast.Manifest, infos []tools.ToolInfo, listErr error) *mcp.Tool {
	return &mcp.Tool{
		Name:         CheckPlan,
		Title:        "Check a plan",
		Description:  describeCheck(m, infos, listErr),
		InputSchema:  json.RawMessage(planSchema),
		OutputSchema: json.RawMessage(diagnosticsSchema),
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true},
	}
}
