package check

import (
	"fmt"

	"github.com/planc/planc/ast"
)

// ruleNeverRuns warns at a condition that can be true only when a
// dependency failed or was skipped, while that dependency stops the plan
// when it fails (on_error fail, the default), so the step can never run
// (S32): the dependency never settles failed in a run that goes on, and
// it settles skipped only when its own condition is false.
//
// The analysis reads the condition's comparisons of a .status with a
// literal or another .status, in three-valued logic: a comparison it
// cannot decide (an output, a step it does not constrain) may be true.
// It warns only when the condition could be true if the named
// dependencies could settle as anything, and cannot as they can: a
// condition false for other reasons is another rule's (status-literal).
//
// Cost: a step's part looks at its condition's references only; a
// reference to a step that is not a direct dependency is answered in the
// plan part by a walk back from the step, cut off at the target's
// topological index, within a budget for the whole plan, past which no
// warning is given.
var ruleNeverRuns = Rule{
	Code:     "never-runs",
	Severity: ast.Warning,
	Doc:      "a condition can be true only when a dependency failed or was skipped, but that dependency stops the plan when it fails (S32)",
	Example:  `{"id": "note", "tool": "notes", "depends_on": ["check"], "if": "$check.status == 'failed'"}`,
	on:       onCond | onRefs,
	step: func(p *Pass, r *Rule, i int, s *ast.Step) {
		if p.Bad[s.Index] || s.Cond == nil {
			return
		}
		deps := p.depsOf(i)
		for k, ti := range p.refsOf(i) {
			ref := s.Refs[k]
			if ti < 0 || int(ti) == i || !ref.InIf || ref.Field != ast.RefStatus {
				continue
			}
			t := p.Plan.Steps[ti]
			if p.Bad[t.Index] || t.OnError != ast.OnErrorFail {
				continue
			}
			if p.neverCands == nil {
				p.neverCands = make([]neverCand, 0, p.ifStatus)
			}
			p.neverCands = append(p.neverCands, neverCand{from: int32(i), target: ti, direct: isDirect(deps, ti)})
		}
	},
	graph: true,
	plan: func(p *Pass, r *Rule) {
		if len(p.neverCands) == 0 {
			return
		}
		g := p.graph()
		budget := 1 << 20 // steps visited by the walks, for the whole plan
		seen := make([]int32, len(p.Plan.Steps))
		stamp := int32(0)
		var queue, targets []int32
		// The candidates of one step are consecutive: collect each step's
		// constrained targets, then judge its condition once.
		for k := 0; k < len(p.neverCands); {
			from := p.neverCands[k].from
			targets = targets[:0]
			for ; k < len(p.neverCands) && p.neverCands[k].from == from; k++ {
				c := p.neverCands[k]
				if g.topo[from] < 0 || g.topo[c.target] < 0 {
					continue // on or behind a cycle: dependency-cycle says it
				}
				dep := c.direct
				if !dep && g.topo[c.target] < g.topo[from] && budget > 0 {
					stamp++
					queue = append(queue[:0], from)
					for q := 0; q < len(queue) && !dep && budget > 0; q++ {
						for _, d := range g.deps(queue[q]) {
							budget--
							if d == c.target {
								dep = true
								break
							}
							if seen[d] != stamp && g.topo[d] > g.topo[c.target] {
								seen[d] = stamp
								queue = append(queue, d)
							}
						}
					}
				}
				if dep && !containsIdx(targets, c.target) {
					targets = append(targets, c.target)
				}
			}
			if len(targets) > 0 {
				p.judgeNeverRuns(r, p.Plan.Steps[from], targets)
			}
		}
	},
}

// neverCand is a .status reference in step from's condition to step
// target, which stops the plan when it fails.
type neverCand struct {
	from, target int32
	direct       bool // target is one of from's depends_on
}

func containsIdx(s []int32, v int32) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// maxNeverTargets bounds the dependencies one condition is judged over:
// the assignments tried grow as 3 to their number.
const maxNeverTargets = 8

// judgeNeverRuns warns when s's condition can be true only if one of the
// targets, its dependencies under on_error fail, failed or was skipped.
// The statuses a target may be seen with are a set (statusSet), so
// judging a condition allocates nothing until there is a warning to word.
func (p *Pass) judgeNeverRuns(r *Rule, s *ast.Step, targets []int32) {
	if len(targets) > maxNeverTargets {
		return
	}
	var idBuf [maxNeverTargets]string
	var canBuf, allBuf, domBuf [maxNeverTargets]statusSet
	ids, can, all, dom := idBuf[:len(targets)], canBuf[:len(targets)], allBuf[:len(targets)], domBuf[:len(targets)]
	for k, t := range targets {
		ts := p.Plan.Steps[t]
		ids[k] = ts.ID
		can[k] = statusSuccess // the statuses each can be seen with
		if ts.Cond != nil {
			can[k] |= statusSkipped // its own condition false
		}
		all[k] = statusAll
	}
	if !condCanHold(s.Cond, ids, all) || condCanHold(s.Cond, ids, can) {
		return
	}
	// The dependencies to blame: each that, free alone, lets the
	// condition hold; when none does alone, all of them.
	var blame []int
	var failed, skipped bool
	for k := range targets {
		copy(dom, can)
		dom[k] = can[k] | statusFailed
		f := condCanHold(s.Cond, ids, dom)
		dom[k] = can[k] | statusSkipped
		sk := can[k]&statusSkipped == 0 && condCanHold(s.Cond, ids, dom)
		if f || sk {
			blame = append(blame, k)
			failed, skipped = failed || f, skipped || sk
		}
	}
	if len(blame) == 0 {
		for k := range targets {
			blame = append(blame, k)
		}
		failed = true
		skipped = false
		for k := range targets {
			if can[k]&statusSkipped == 0 {
				skipped = true
			}
		}
	}
	names := make([]string, len(blame))
	deflt := true
	for n, k := range blame {
		names[n] = ids[k]
		if p.Plan.Steps[targets[k]].OnErrorField() != nil {
			deflt = false
		}
	}
	who, was := ast.QuoteList(names, ""), "was"
	if len(names) > 1 {
		who, was = "some of "+who, "were"
	}
	var when, fix string
	switch {
	case failed && skipped:
		when, fix = who+" failed or "+was+" skipped", `"on_error": "continue" (or "skip")`
	case failed:
		when, fix = who+" failed", `"on_error": "continue"`
	default:
		when, fix = who+" "+was+" skipped", `"on_error": "skip"`
	}
	policy := `on_error "fail"`
	if deflt {
		policy += ", the default"
	}
	subj, verb, on := ast.QuoteList(names, ""), "stops the plan when it fails", ast.QuoteList(names, "")
	if len(names) > 1 {
		subj, verb, on = "each", "stops the plan when it fails", "each of them"
	}
	msg := fmt.Sprintf("%s can run only if %s, but %s %s (%s), so %s never runs; set %s on %s",
		stepName(s), when, subj, verb, policy, stepName(s), fix, on)
	p.report(r, s, s.Cond.CondSpan(), "", "%s", msg)
}

// statusSet is a set of the statuses of S11: bit k is statuses[k].
type statusSet uint8

const (
	statusSuccess statusSet = 1 << iota
	statusFailed
	statusSkipped
	statusAll = statusSuccess | statusFailed | statusSkipped
)

// condCanHold reports whether cond may be true for some assignment of a
// status from dom[k] to each step ids[k]; comparisons of anything else
// may be true or false.
func condCanHold(cond ast.Cond, ids []string, dom []statusSet) bool {
	var assign [maxNeverTargets]string
	return canHoldFrom(cond, ids, dom, assign[:len(ids)], 0)
}

// canHoldFrom tries every status of dom[k], then of the steps after k.
func canHoldFrom(cond ast.Cond, ids []string, dom []statusSet, assign []string, k int) bool {
	if k == len(ids) {
		return evalTri(cond, ids, assign) != triFalse
	}
	for i, st := range statuses {
		if dom[k]&(1<<i) == 0 {
			continue
		}
		assign[k] = st
		if canHoldFrom(cond, ids, dom, assign, k+1) {
			return true
		}
	}
	return false
}

// tri is a truth value that may be unknown.
type tri uint8

const (
	triFalse tri = iota
	triTrue
	triUnknown
)

// evalTri evaluates cond with the statuses assigned to ids known and
// every other operand unknown (Kleene's logic).
func evalTri(cond ast.Cond, ids, assign []string) tri {
	switch c := cond.(type) {
	case *ast.Logical:
		x := evalTri(c.X, ids, assign)
		if c.Op == ast.OpAnd {
			if x == triFalse {
				return triFalse
			}
			y := evalTri(c.Y, ids, assign)
			if y == triFalse {
				return triFalse
			}
			if x == triTrue && y == triTrue {
				return triTrue
			}
			return triUnknown
		}
		if x == triTrue {
			return triTrue
		}
		y := evalTri(c.Y, ids, assign)
		if y == triTrue {
			return triTrue
		}
		if x == triFalse && y == triFalse {
			return triFalse
		}
		return triUnknown
	case *ast.Compare:
		a, aok := operandValue(c.X, ids, assign)
		b, bok := operandValue(c.Y, ids, assign)
		if !aok || !bok {
			return triUnknown
		}
		var v bool
		switch c.Op {
		case ast.OpEq:
			v = a == b
		case ast.OpNe:
			v = a != b
		case ast.OpGt:
			v = a > b
		case ast.OpLt:
			v = a < b
		}
		if v {
			return triTrue
		}
		return triFalse
	}
	return triUnknown
}

// operandValue returns a literal's text, or the status assigned to the
// step a .status reference names; false when the value is not known.
func operandValue(o ast.Operand, ids, assign []string) (string, bool) {
	switch o := o.(type) {
	case *ast.Literal:
		return o.Value, true
	case *ast.Ref:
		if o.Field != ast.RefStatus {
			return "", false
		}
		for k, id := range ids {
			if id == o.StepID {
				return assign[k], true
			}
		}
	}
	return "", false
}
