package check

import "github.com/planc/planc/ast"

// graph is the plan's dependency graph over step indices, built once per
// pass for the cycle and reachability rules. Only depends_on entries naming
// a declared step are edges (an unknown one is unknown-dependency's).
type graph struct {
	deps    [][]int32       // deps[i]: the steps step i depends on
	depRefs [][]*ast.DepRef // the entries behind deps[i], same order
	users   [][]int32       // users[i]: the steps that depend on step i
	// topo[i] is step i's index in a topological order, or -1 when the
	// step lies on or behind a cycle.
	topo []int32
}

func (p *Pass) graph() *graph {
	if p.g != nil {
		return p.g
	}
	n := len(p.Plan.Steps)
	g := &graph{deps: make([][]int32, n), depRefs: make([][]*ast.DepRef, n), users: make([][]int32, n), topo: make([]int32, n)}
	// Steps are indexed by their position in p.Plan.Steps (p.pos), which
	// may differ from Step.Index when a steps element is not an object.
	for i, s := range p.Plan.Steps {
		for _, d := range s.DependsOn {
			t, ok := p.ByID[d.ID]
			if !ok {
				continue
			}
			j := p.pos[t.Index]
			g.deps[i] = append(g.deps[i], j)
			g.depRefs[i] = append(g.depRefs[i], d)
			g.users[j] = append(g.users[j], int32(i))
		}
	}
	// Kahn's algorithm, in plan order, for the topological index.
	indeg := make([]int32, n)
	for i := range g.deps {
		indeg[i] = int32(len(g.deps[i]))
	}
	queue := make([]int32, 0, n)
	for i := range indeg {
		g.topo[i] = -1
		if indeg[i] == 0 {
			queue = append(queue, int32(i))
		}
	}
	for k := 0; k < len(queue); k++ {
		i := queue[k]
		g.topo[i] = int32(k)
		for _, u := range g.users[i] {
			if indeg[u]--; indeg[u] == 0 {
				queue = append(queue, u)
			}
		}
	}
	p.g = g
	return g
}
