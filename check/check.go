// Package check runs every refusal and every warning of docs/semantics.md
// over a parsed plan. It is the third stage of the flow (bytes → ast →
// check → ir → vm) and imports only ast of planc's, and parser for Load:
// the front end (limits, parse, check) whose *Plan, a plan check accepted,
// is what the later stages take. For tool-input it uses
// santhosh-tekuri/jsonschema, whose JSON Schema semantics it maps back onto
// the plan's positions. Each rule lives in a file of its own (rule_*.go)
// with a stable kebab-case code; Rules lists them all, which is also what
// the README's table of codes is made from.
//
// A finding about the plan is an ast.Diagnostic; check never returns a Go
// error. Rules avoid cascades: a step whose schema is wrong is not checked
// again for what follows from it, and an unknown dependency does not also
// raise a cycle.
package check

import (
	"encoding/json"

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
	// ToolSchemas maps a tool name to its input schema, JSON Schema text:
	// the built-in tools' (host/toolschema) and each MCP tool's
	// inputSchema. The tool-input rule holds the input of a step naming a
	// tool of Tools to that tool's schema; a tool without one is not
	// checked. WithSchemas adds them.
	ToolSchemas map[string]json.RawMessage
	// Manifest is the path of the manifest the capabilities come from, as
	// given or found (".planc/capsule.json"): the fix that ends each
	// capability refusal names it and the field to change; "" names no
	// file. Embedded marks the embedded default capsule instead, which
	// cannot be edited: the fix then says to make .planc/capsule.json with
	// planc init first.
	Manifest string
	Embedded bool
	// Found, when set, reports whether an allowed shell binary (a first
	// word of capabilities.shell.allow) can be found now, as a run
	// would look it up: the binary-not-found warning asks it. nil leaves
	// the warning off (golden tests, hosts that look binaries up
	// elsewhere).
	Found func(bin string) bool
}

// Rule is one check with a stable code.
type Rule struct {
	Code     string       // stable kebab-case code
	Severity ast.Severity // what the rule reports
	Doc      string       // one line: what the rule finds
	Example  string       // one line of plan JSON that the rule reports
	// NeedsCaps marks rules that only run with capabilities.
	NeedsCaps bool
	// plan checks what is not per step: the plan object's own fields, or
	// (for the graph rules) the whole dependency graph. It runs before the
	// pass over the steps, or after it for a graph rule.
	plan func(p *Pass, r *Rule)
	// step checks one step (i is its position in Plan.Steps). Check makes
	// one pass over the steps and calls every rule's step in list order, so
	// a step's AST is read from memory once, not once per rule; a rule
	// reading Pass.Bad sees what the rules before it found for that step.
	step func(p *Pass, r *Rule, i int, s *ast.Step)
	// on is what a step must have for step to look at it (every feature of
	// the mask; 0: every step): the rules that do more than a glance (the
	// input walks, the shell line's, the condition's and the schemas')
	// cost nothing on the steps without what they check. TestRuleOn and
	// FuzzCheckOrder hold that a rule finds nothing on the steps it skips.
	on stepFeature
	// graph marks a rule that needs every step's Bad and the resolved graph:
	// its plan part runs after the pass over the steps.
	graph bool
}

// Pass is the shared state of one check run: the plan, the capabilities,
// the step index by id, and the diagnostics found so far.
type Pass struct {
	Plan *ast.Plan
	Caps *Capabilities
	// byID finds steps by id (the first step of each id).
	byID *idIndex
	// Bad marks steps whose schema is wrong (by Step.Index); later rules
	// skip what follows from such a step.
	Bad   []bool
	diags []Diagnostic
	g     *graph
	// deps and refs hold the position in Plan.Steps of every step's
	// depends_on entries and references (-1: no such step), one step after
	// another; step i's are at [depOff[i], depOff[i+1]) and
	// [refOff[i], refOff[i+1]). resolve fills them during the pass.
	deps, refs     []int32
	depOff, refOff []int32
	// refCands lists the references reference-not-dependency must answer
	// from the whole graph (their target is not a direct dependency).
	refCands []refCand
	// neverCands lists the .status references in conditions that
	// never-runs judges from the graph, grouped by step.
	neverCands []neverCand
	// ifStatus counts the .status references in conditions: the most
	// neverCands can hold, so it is made once at that size.
	ifStatus int
	// suggest is did-you-mean over the plan's step ids (stepSuggester),
	// made on first use; its budget caps that work for the whole plan.
	suggest *ast.Suggester
	// tools is the sorted tool inventory and spawnBare the bare names of
	// capabilities.spawn.allow, made by their rules' plan parts.
	tools, spawnBare []string
	// inputs holds the tool schemas tool-input compiles, each once per
	// check; nil without capabilities.
	inputs *inputSchemas
	// cmpStep and cmps cache the comparisons of the step the condition
	// rules are looking at (stepCompares).
	cmpStep *ast.Step
	cmps    []*ast.Compare
}

// Report adds a diagnostic.
func (p *Pass) Report(d Diagnostic) { p.diags = append(p.diags, d) }

// newPass makes the Pass for plan, with its id index.
func newPass(plan *ast.Plan, caps *Capabilities) *Pass {
	n := 0
	if len(plan.Steps) > 0 {
		n = plan.Steps[len(plan.Steps)-1].Index + 1
	}
	// resolve appends every step's entries and references: sized exactly
	// here, they cost one allocation each instead of a doubling series.
	nd, nr := 0, 0
	nif := 0
	for _, s := range plan.Steps {
		nd += len(s.DependsOn)
		nr += len(s.Refs)
		if s.Cond != nil {
			for _, r := range s.Refs {
				if r.InIf && r.Field == ast.RefStatus {
					nif++
				}
			}
		}
	}
	p := &Pass{Plan: plan, Caps: caps, Bad: make([]bool, n),
		depOff: make([]int32, 1, len(plan.Steps)+1), refOff: make([]int32, 1, len(plan.Steps)+1),
		deps: make([]int32, 0, nd), refs: make([]int32, 0, nr), ifStatus: nif}
	p.byID = newIDIndex(len(plan.Steps), func(i int32) string { return plan.Steps[i].ID })
	return p
}

// Check runs every rule over plan and returns the diagnostics sorted by
// position. caps nil turns off the rules that need capabilities.
func Check(plan *ast.Plan, caps *Capabilities) []Diagnostic {
	if plan == nil {
		return nil
	}
	p := newPass(plan, caps)
	var all []Rule
	for _, r := range rules() {
		if !r.NeedsCaps || caps != nil {
			all = append(all, r)
		}
	}
	var stepRules []*Rule
	for i := range all {
		r := &all[i]
		if r.plan != nil && !r.graph {
			r.plan(p, r)
		}
		if r.step != nil {
			stepRules = append(stepRules, r)
		}
	}
	for i, s := range plan.Steps {
		p.resolve(s)
		f := featuresOf(s)
		for _, r := range stepRules {
			if f&r.on == r.on {
				r.step(p, r, i, s)
			}
		}
	}
	for i := range all {
		if r := &all[i]; r.plan != nil && r.graph {
			r.plan(p, r)
		}
	}
	ast.SortDiagnostics(p.diags)
	return p.diags
}

// stepFeature is a mask of what a step has, for Rule.on.
type stepFeature uint16

const (
	onTool    stepFeature = 1 << iota // Kind is KindTool
	onShell                           // Kind is KindShell
	onCapsule                         // Kind is KindCapsule
	onInput                           // an input field
	onDeps                            // depends_on has a string entry
	onRefs                            // a reference in input or if
	onCond                            // an if that parsed (Cond)
	onCondErr                         // an if that did not (CondErr)
)

// featuresOf returns what step s has.
func featuresOf(s *ast.Step) stepFeature {
	var f stepFeature
	switch s.Kind {
	case ast.KindTool:
		f |= onTool
	case ast.KindShell:
		f |= onShell
	case ast.KindCapsule:
		f |= onCapsule
	}
	if s.Input != nil {
		f |= onInput
	}
	if len(s.DependsOn) > 0 {
		f |= onDeps
	}
	if len(s.Refs) > 0 {
		f |= onRefs
	}
	if s.Cond != nil {
		f |= onCond
	}
	if s.CondErr != nil {
		f |= onCondErr
	}
	return f
}
