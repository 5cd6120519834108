package check

import (
	"slices"
	"strconv"
	"strings"

	"github.com/planc/planc/ast"
)

// ruleDependencyCycle refuses a dependency cycle before anything runs (the
// seed; S23). Each strongly connected component with a cycle is reported
// once per step on one cycle through its earliest step, every diagnostic
// carrying the same message, which names the cycle in order from that
// step: "a → b → c → a", each step depending on the next. A cycle of more
// than maxCycleNames steps is named by its first steps and its last, with
// the count of those left out, so that the diagnostics of a cycle of n
// steps hold O(n) text, not O(n²).
var ruleDependencyCycle = Rule{
	Code:     "dependency-cycle",
	Severity: ast.Error,
	Doc:      "the steps' depends_on entries form a cycle (S23)",
	Example:  `[{"id": "a", "tool": "notes", "depends_on": ["b"]}, {"id": "b", "tool": "notes", "depends_on": ["a"]}]`,
	graph:    true,
	plan: func(p *Pass, r *Rule) {
		g := p.graph()
		if !slices.ContainsFunc(g.topo, func(t int32) bool { return t < 0 }) {
			return // every step is ordered: no cycle
		}
		comp := sccs(g)
		done := map[int32]bool{}
		for i := range p.Plan.Steps {
			c := comp[i]
			if g.topo[i] >= 0 || done[c] {
				continue
			}
			cyc := cycleFrom(g, comp, int32(i))
			if cyc == nil {
				continue // behind a cycle, not on one
			}
			done[c] = true
			msg := "dependency cycle " + cycleNames(p, cyc) + " (each step depends on the next); remove one of these depends_on entries"
			for x, k := range cyc {
				next := cyc[(x+1)%len(cyc)]
				s := p.Plan.Steps[k]
				sp := s.Span
				for y, d := range p.depsOf(int(k)) {
					if d == next {
						sp = s.DependsOn[y].Span
						break
					}
				}
				p.report(r, s, sp, "", "%s", msg)
			}
		}
	},
}

// sccs labels each step with its strongly connected component (Tarjan's
// algorithm, iterative so a 100,000-step chain needs no deep recursion).
func sccs(g *graph) []int32 {
	n := g.len()
	index := make([]int32, n)
	low := make([]int32, n)
	comp := make([]int32, n)
	onStack := make([]bool, n)
	for i := range index {
		index[i] = -1
		comp[i] = -1
	}
	var stack []int32
	type frame struct{ v, e int32 }
	var call []frame
	next, ncomp := int32(0), int32(0)
	for root := range n {
		if index[root] >= 0 {
			continue
		}
		call = append(call, frame{v: int32(root)})
		index[root], low[root] = next, next
		next++
		stack = append(stack, int32(root))
		onStack[root] = true
		for len(call) > 0 {
			f := &call[len(call)-1]
			v := f.v
			if ds := g.deps(v); int(f.e) < len(ds) {
				w := ds[f.e]
				f.e++
				if index[w] < 0 {
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					onStack[w] = true
					call = append(call, frame{v: w})
				} else if onStack[w] {
					low[v] = min(low[v], index[w])
				}
				continue
			}
			call = call[:len(call)-1]
			if len(call) > 0 {
				u := call[len(call)-1].v
				low[u] = min(low[u], low[v])
			}
			if low[v] == index[v] {
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[w] = false
					comp[w] = ncomp
					if w == v {
						break
					}
				}
				ncomp++
			}
		}
	}
	return comp
}

// cycleFrom returns a cycle through start that stays in start's component,
// following depends_on edges (breadth first, so the cycle is a shortest
// one), or nil when start is on no cycle.
func cycleFrom(g *graph, comp []int32, start int32) []int32 {
	c := comp[start]
	prev := map[int32]int32{}
	queue := []int32{start}
	for k := 0; k < len(queue); k++ {
		v := queue[k]
		for _, w := range g.deps(v) {
			if comp[w] != c {
				continue
			}
			if w == start {
				cyc := []int32{}
				for x := v; x != start; x = prev[x] {
					cyc = append(cyc, x)
				}
				cyc = append(cyc, start)
				for a, b := 0, len(cyc)-1; a < b; a, b = a+1, b-1 {
					cyc[a], cyc[b] = cyc[b], cyc[a]
				}
				return cyc
			}
			if _, seen := prev[w]; !seen {
				prev[w] = v
				queue = append(queue, w)
			}
		}
	}
	return nil
}

// maxCycleNames is the most steps a cycle's message names in full; a
// longer cycle is named by its first maxCycleNames-1 steps and its last.
const maxCycleNames = 12

// cycleNames names the steps of cyc in order and the first again:
// "a → b → c → a", or for a cycle of more than maxCycleNames steps
// "s0 → … → s10 → … 99,988 more … → s99999 → s0".
func cycleNames(p *Pass, cyc []int32) string {
	id := func(k int32) string { return p.Plan.Steps[k].ID }
	var names []string
	if len(cyc) <= maxCycleNames {
		for _, k := range cyc {
			names = append(names, id(k))
		}
	} else {
		for _, k := range cyc[:maxCycleNames-1] {
			names = append(names, id(k))
		}
		names = append(names, "… "+thousands(len(cyc)-maxCycleNames)+" more …", id(cyc[len(cyc)-1]))
	}
	return strings.Join(append(names, id(cyc[0])), " → ")
}

// thousands writes n with commas between groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
