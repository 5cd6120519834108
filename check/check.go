// Package check runs every refusal of the seed and every warning of
// semantics.md over a parsed plan. It is the third stage of the flow
// (bytes → ast → check → ir → vm) and imports only ast. Each rule lives in a
// file of its own (rule_*.go) with a stable kebab-case code; Rules lists them
// all, which is also what the README's table of codes is made from.
//
// A finding about the plan is an ast.Diagnostic; check never returns a Go
// error. Rules avoid cascades: a step whose schema is wrong is not checked
// again for what follows from it, and an unknown dependency does not also
// raise a cycle.
package check

import (
	"github.com/planc/planc/ast"
)

// Diagnostic is ast.Diagnostic, re-exported for callers of check.
type Diagnostic = ast.Diagnostic

// Capabilities is what the capsule manifest grants that validation needs.
// A nil *Capabilities turns the capability rules off (no --capsule).
type Capabilities struct {
	// Tools is the tool inventory: every tool name a tool step may name.
	Tools []string
	// ToolsPending is true while Tools lacks the tools of the manifest's
	// MCP servers, which are known only once the servers run: the
	// unknown-tool rule is off until WithTools adds them.
	ToolsPending bool
	// ShellAllow is capabilities.shell.allow: the binaries a shell step's
	// first word may be, compared exactly (S14).
	ShellAllow []string
	// SpawnAllow is capabilities.spawn.allow: namespaced capsule names such
	// as "local/worker" (S15).
	SpawnAllow []string
}

// Rule is one check with a stable code.
type Rule struct {
	Code     string       // stable kebab-case code
	Severity ast.Severity // what the rule reports
	Doc      string       // one line: what the rule finds
	Example  string       // one line of plan JSON that the rule reports
	// NeedsCaps marks rules that only run with capabilities.
	NeedsCaps bool
	run       func(p *Pass, r *Rule)
}

// Pass is the shared state of one check run: the plan, the capabilities,
// the step index by id, and the diagnostics found so far.
type Pass struct {
	Plan *ast.Plan
	Caps *Capabilities
	// ByID maps each step id to the first step that declares it.
	ByID map[string]*ast.Step
	// Bad marks steps whose schema is wrong (by Step.Index); later rules
	// skip what follows from such a step.
	Bad   []bool
	diags []Diagnostic
	g     *graph
	// pos is each step's position in Plan.Steps, by Step.Index (they differ
	// when an element of steps is not an object).
	pos []int32
	// argv0 is a shell step's first word, by Step.Index, once shell-syntax
	// has split its command line ("" when it could not).
	argv0 []string
	// depPos and refPos are the resolved dependencies and references, by
	// position in Plan.Steps (resolve).
	depPos, refPos [][]int32
}

// Report adds a diagnostic.
func (p *Pass) Report(d Diagnostic) { p.diags = append(p.diags, d) }

// Check runs every rule over plan and returns the diagnostics sorted by
// position. caps nil turns off the rules that need capabilities.
func Check(plan *ast.Plan, caps *Capabilities) []Diagnostic {
	if plan == nil {
		return nil
	}
	n := 0
	if len(plan.Steps) > 0 {
		n = plan.Steps[len(plan.Steps)-1].Index + 1
	}
	p := &Pass{Plan: plan, Caps: caps, ByID: make(map[string]*ast.Step, len(plan.Steps)),
		Bad: make([]bool, n), pos: make([]int32, n), argv0: make([]string, n)}
	for i, s := range plan.Steps {
		p.pos[s.Index] = int32(i)
		if s.ID != "" {
			if _, dup := p.ByID[s.ID]; !dup {
				p.ByID[s.ID] = s
			}
		}
	}
	for _, r := range rules() {
		if r.NeedsCaps && caps == nil {
			continue
		}
		r.run(p, &r)
	}
	ast.SortDiagnostics(p.diags)
	return p.diags
}
