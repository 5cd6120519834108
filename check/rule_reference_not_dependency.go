package check

import (
	"github.com/planc/planc/ast"
)

// ruleReferenceNotDependency warns for every reference whose target is not
// a transitive dependency of the referring step (S9): only a dependency
// guarantees the target has settled when the step becomes ready; otherwise
// the step fails with "step has not settled" at run time.
//
// Cost: a reference to a direct dependency is answered at once; the others
// are grouped by target, and one forward walk from each such target, cut off
// at the topological index of its last referrer, answers all of them, so the
// common cases stay linear in the plan's size.
var ruleReferenceNotDependency = Rule{
	Code:     "reference-not-dependency",
	Severity: ast.Warning,
	Doc:      "a reference's target is not a transitive dependency of the step, so it may not have settled (S9)",
	Example:  `{"id": "n", "tool": "notes", "input": {"body": "$check.output"}}`,
	// The step part sets aside the references whose target is not a
	// direct dependency, while the step is at hand; the plan part answers
	// those from the graph once every step is resolved.
	on: onRefs,
	step: func(p *Pass, r *Rule, i int, s *ast.Step) {
		if p.Bad[s.Index] {
			return
		}
		deps := p.depsOf(i)
		for k, ti := range p.refsOf(i) {
			if ti >= 0 && !isDirect(deps, ti) {
				p.refCands = append(p.refCands, refCand{from: int32(i), target: ti, ref: s.Refs[k]})
			}
		}
	},
	graph: true,
	plan: func(p *Pass, r *Rule) {
		if len(p.refCands) == 0 {
			return
		}
		g := p.graph()
		byTarget := map[int32][]refCand{}
		var targets []int32
		for _, c := range p.refCands {
			i, ti := c.from, c.target
			if g.topo[i] < 0 {
				continue // on or behind a cycle: dependency-cycle says it
			}
			if ti == i || g.topo[ti] < 0 || g.topo[ti] >= g.topo[i] {
				p.warnRef(r, p.Plan.Steps[i], c.ref, ti == i)
				continue
			}
			if _, seen := byTarget[ti]; !seen {
				targets = append(targets, ti)
			}
			byTarget[ti] = append(byTarget[ti], c)
		}
		mark := make([]int32, len(p.Plan.Steps)) // stamp: target index+1 that reached it
		var queue []int32
		for _, t := range targets {
			qs := byTarget[t]
			limit := int32(0)
			for _, q := range qs {
				limit = max(limit, g.topo[q.from])
			}
			stamp := t + 1
			queue = append(queue[:0], t)
			mark[t] = stamp
			for k := 0; k < len(queue); k++ {
				for _, u := range g.users(queue[k]) {
					if mark[u] != stamp && g.topo[u] >= 0 && g.topo[u] <= limit {
						mark[u] = stamp
						queue = append(queue, u)
					}
				}
			}
			for _, q := range qs {
				if mark[q.from] != stamp {
					p.warnRef(r, p.Plan.Steps[q.from], q.ref, false)
				}
			}
		}
	},
}

// refCand is a reference of step from to step target that is not one of
// from's direct dependencies.
type refCand struct {
	from, target int32
	ref          *ast.Ref
}

func isDirect(deps []int32, t int32) bool {
	for _, d := range deps {
		if d == t {
			return true
		}
	}
	return false
}

func (p *Pass) warnRef(r *Rule, s *ast.Step, ref *ast.Ref, self bool) {
	if self {
		p.report(r, s, ref.Span, "", "%s references itself with %s, which cannot have settled when it runs; reference another step", stepName(s), ref)
		return
	}
	p.report(r, s, ref.Span, "", "%s references %s but does not depend on %q, so it may run before %q settles and fail; add %q to its depends_on", stepName(s), ref, ref.StepID, ref.StepID, ref.StepID)
}
