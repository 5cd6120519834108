package serve

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/check"
)

// PlanFile is the file name diagnostics give the plan: plan:LINE:COL.
const PlanFile = "plan"

// checkPlan is the check-plan tool: the diagnostics of `planc check
// --capsule` with the server's manifest, as text and as structured
// content. Finding errors is what a check is for, so the result is a
// failed one only when the check itself could not run.
func (c *conn) checkPlan(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	caps, err := c.s.capabilities(ctx)
	if err != nil {
		return errorResult("planc could not list the tools of the capsule's MCP servers, so the plan was not checked: %v", err), nil
	}
	src := planText(arguments(req))
	_, ds := check.Load(src, caps)
	errs, warns := count(ds)
	var text string
	switch {
	case len(ds) == 0:
		text = "no problems: submit-plan would accept this plan"
	case errs == 0:
		text = fmt.Sprintf("%s; submit-plan would accept this plan:\n%s", plural(warns, "warning"), diagLines(ds))
	default:
		text = fmt.Sprintf("%s, %s; submit-plan would refuse this plan (plan:LINE:COL counts in the arguments re-indented with two spaces, one member per line):\n%s",
			plural(errs, "error"), plural(warns, "warning"), diagLines(ds))
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: text}},
		StructuredContent: diagnosticsObject(ds),
	}, nil
}

// sorted returns ds in `planc check`'s order, as a fresh slice.
func sorted(ds []ast.Diagnostic) []ast.Diagnostic {
	ds = slices.Clone(ds)
	ast.SortDiagnostics(ds)
	return ds
}

// count counts errors and warnings.
func count(ds []ast.Diagnostic) (errs, warns int) {
	for _, d := range ds {
		if d.Severity == ast.Error {
			errs++
		} else {
			warns++
		}
	}
	return errs, warns
}

// diagLines formats ds one a line, as the first line of each of `planc
// check`'s diagnostics: plan:LINE:COL: severity: message [code].
func diagLines(ds []ast.Diagnostic) string {
	var b strings.Builder
	for i, d := range ds {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(d.OneLine(PlanFile))
	}
	return b.String()
}

// Diagnostic is one diagnostic in structured content: the object `planc
// check --format json` prints.
type Diagnostic struct {
	File       string  `json:"file"`
	Line       int     `json:"line"`
	Col        int     `json:"col"`
	EndLine    int     `json:"end_line"`
	EndCol     int     `json:"end_col"`
	Severity   string  `json:"severity"`
	Code       string  `json:"code"`
	Message    string  `json:"message"`
	Step       *string `json:"step"`
	Suggestion string  `json:"suggestion,omitempty"`
}

// Diagnostics is the structured content of check-plan, and of a refused
// submit-plan.
type Diagnostics struct {
	Diagnostics []Diagnostic `json:"diagnostics"`
	Errors      int          `json:"errors"`
	Warnings    int          `json:"warnings"`
}

// diagnosticsObject converts ds.
func diagnosticsObject(ds []ast.Diagnostic) Diagnostics {
	out := Diagnostics{Diagnostics: make([]Diagnostic, 0, len(ds))}
	out.Errors, out.Warnings = count(ds)
	for _, d := range ds {
		end := d.Span.End
		if !end.IsValid() {
			end = d.Span.Start
		}
		j := Diagnostic{
			File: PlanFile, Line: int(d.Span.Start.Line), Col: int(d.Span.Start.Col), EndLine: int(end.Line), EndCol: int(end.Col),
			Severity: d.Severity.String(), Code: d.Code, Message: d.Message, Suggestion: d.Suggestion,
		}
		if d.Step != "" {
			j.Step = &d.Step
		}
		out.Diagnostics = append(out.Diagnostics, j)
	}
	return out
}
