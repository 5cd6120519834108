package check

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/planc/planc/ast"
	"github.com/planc/planc/parser"
)

// TestRuleOn: a rule finds nothing on a step that lacks what its Rule.on
// asks for, so skipping the step loses nothing: on every golden plan,
// with and without capabilities, each such rule run on each step it skips
// reports nothing and marks nothing Bad, and Check finds what it finds
// when every rule runs on every step.
func TestRuleOn(t *testing.T) {
	caps := goldenCaps(t)
	masked := 0
	for _, r := range rules() {
		if r.on != 0 {
			masked++
		}
	}
	if masked < 20 {
		t.Fatalf("only %d rules have a Rule.on mask", masked)
	}
	skipped := 0
	for path, src := range goldenPlans(t) {
		plan, _ := parser.ParsePlan(src, parser.DefaultLimits())
		for _, c := range []*Capabilities{caps, nil} {
			// checkRuleByRule runs every rule on every step.
			if diff := cmp.Diff(checkRuleByRule(plan, c), Check(plan, c)); diff != "" {
				t.Errorf("%s (caps %v): every rule on every step (-) and Rule.on (+) differ:\n%s", path, c != nil, diff)
			}
			skipped += ruleOnSkips(t, path, plan, c)
		}
	}
	if skipped == 0 {
		t.Fatal("no golden step was skipped by any rule")
	}
}

// ruleOnSkips runs each masked rule on each step of plan that its mask
// skips, after a full check has set up the pass, and fails t when it
// reports or marks the step Bad. It returns the number of such runs.
func ruleOnSkips(t *testing.T, path string, plan *ast.Plan, caps *Capabilities) int {
	if plan == nil {
		return 0
	}
	p := newPass(plan, caps)
	all := rules()
	for i := range all {
		if r := &all[i]; r.plan != nil && !r.graph && (!r.NeedsCaps || caps != nil) {
			r.plan(p, r)
		}
	}
	for _, s := range plan.Steps {
		p.resolve(s)
	}
	n := 0
	for i, s := range plan.Steps {
		f := featuresOf(s)
		for k := range all {
			r := &all[k]
			if r.step == nil || r.on == 0 || f&r.on == r.on || (r.NeedsCaps && caps == nil) {
				continue
			}
			nd, bad := len(p.diags), p.Bad[s.Index]
			r.step(p, r, i, s)
			n++
			if len(p.diags) != nd || p.Bad[s.Index] != bad {
				t.Errorf("%s: %s finds something on step %d, which its Rule.on skips: %v", path, r.Code, i, p.diags[nd:])
				p.diags = p.diags[:nd]
			}
		}
	}
	return n
}
